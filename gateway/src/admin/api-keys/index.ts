import type { AdminDeps } from "../admin-context";
import type { AdminHandlers } from "../operations";
import * as apiKeys from "./service";

export function apiKeyOperations(
  deps: AdminDeps,
): AdminHandlers<"listApiKeys" | "createApiKey" | "getApiKey" | "updateApiKey" | "rotateApiKey" | "revokeApiKey"> {
  return {
    listApiKeys: ({ params, query }) => apiKeys.listKeys(deps, params.ws, query),
    createApiKey: ({ caller, params, body }) => apiKeys.createApiKey(deps, caller, params.ws, body),
    getApiKey: ({ params }) => apiKeys.getKey(deps, params.ws, params.id),
    updateApiKey: ({ caller, params, body }) => apiKeys.changeKey(deps, caller, params.ws, params.id, body),
    rotateApiKey: ({ caller, params, body }) => apiKeys.rotateKey(deps, caller, params.ws, params.id, body),
    revokeApiKey: ({ caller, params }) => apiKeys.revokeKey(deps, caller, params.ws, params.id),
  };
}

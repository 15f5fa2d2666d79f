import type { AdminDeps } from "../admin-context";
import type { AdminHandlers } from "../operations";
import * as apiKeys from "./service";

export function apiKeyOperations(deps: AdminDeps): AdminHandlers<"createApiKey" | "listApiKeys" | "revokeApiKey"> {
  return {
    createApiKey: ({ params, body }) => apiKeys.createApiKey(deps, params.ws, body),
    listApiKeys: ({ params, query }) => apiKeys.listKeys(deps, params.ws, query),
    revokeApiKey: ({ params }) => apiKeys.revokeKey(deps, params.ws, params.id),
  };
}

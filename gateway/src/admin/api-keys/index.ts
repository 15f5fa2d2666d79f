import { Elysia } from "elysia";
import { noContent } from "@ws/shared";
import type { AdminDeps } from "../admin-context";
import { CreateApiKeyBody, ListApiKeysQuery } from "./model";
import { createApiKey, listKeys, revokeKey } from "./service";

export function apiKeyRoutes(deps: AdminDeps) {
  return new Elysia()
    .post(
      "/admin/v1/workspaces/:ws/api-keys",
      async ({ params, body, set }) => {
        const key = await createApiKey(deps, params.ws, body);
        set.status = 201;
        return key;
      },
      { body: CreateApiKeyBody },
    )
    .get("/admin/v1/workspaces/:ws/api-keys", ({ params, query }) => listKeys(deps, params.ws, query), { query: ListApiKeysQuery })
    .delete("/admin/v1/workspaces/:ws/api-keys/:id", async ({ params }) => {
      await revokeKey(deps, params.ws, params.id);
      return noContent();
    });
}

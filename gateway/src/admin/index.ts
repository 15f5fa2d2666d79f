import { Elysia } from "elysia";
import type { AdminDeps } from "./admin-context";
import { requireAdminToken } from "./admin-auth";
import { apiKeyRoutes } from "./api-keys";
import { memberRoutes } from "./members";
import { teamRoutes } from "./teams";
import { workspaceRoutes } from "./workspaces";

/** Contract 8: the management API, mounted on the internal port only. */
export function adminRoutes(deps: AdminDeps, adminToken: string) {
  return new Elysia()
    .use(requireAdminToken(adminToken))
    .use(workspaceRoutes(deps))
    .use(teamRoutes(deps))
    .use(memberRoutes(deps))
    .use(apiKeyRoutes(deps));
}

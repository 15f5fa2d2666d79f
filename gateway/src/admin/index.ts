import { Elysia } from "elysia";
import type { AdminDeps } from "./admin-context";
import { requireAdminToken, type AdminAuthDeps } from "./admin-auth";
import { apiKeyRoutes } from "./api-keys";
import { memberRoutes } from "./members";
import { teamRoutes } from "./teams";
import { workspaceRoutes } from "./workspaces";

/** The management API, mounted on the internal port only. */
export function adminRoutes(deps: AdminDeps, auth: AdminAuthDeps) {
  return new Elysia()
    .use(requireAdminToken(auth))
    .use(workspaceRoutes(deps))
    .use(teamRoutes(deps))
    .use(memberRoutes(deps))
    .use(apiKeyRoutes(deps));
}

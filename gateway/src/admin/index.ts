import { Elysia } from "elysia";
import { mountOperations } from "@ws/shared";
import type { AdminDeps } from "./admin-context";
import { requireAdminToken, type AdminAuthDeps } from "./admin-auth";
import { apiKeyOperations } from "./api-keys";
import { memberOperations } from "./members";
import { ADMIN_OPERATIONS, ADMIN_PREFIX } from "./operations";
import { teamOperations } from "./teams";
import { workspaceOperations } from "./workspaces";

/** The management API, mounted on the internal port only: every operation of its table, behind the admin token. */
export function adminRoutes(deps: AdminDeps, auth: AdminAuthDeps) {
  return mountOperations(new Elysia({ prefix: ADMIN_PREFIX }).use(requireAdminToken(auth)), ADMIN_OPERATIONS, {
    ...workspaceOperations(deps),
    ...teamOperations(deps),
    ...memberOperations(deps),
    ...apiKeyOperations(deps),
  });
}

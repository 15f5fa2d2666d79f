import { createHash } from "node:crypto";
import { Elysia } from "elysia";
import { deadlineOf, mountOperations, requestIdOf } from "@ws/shared";
import type { AdminDeps } from "./admin-context";
import { requireAdminToken, type AdminAuthDeps } from "./admin-auth";
import { apiKeyOperations } from "./api-keys";
import { auditLogOperations } from "./audit-log";
import { memberOperations } from "./members";
import { describeAdminRoute } from "./openapi/operation-errors";
import { ADMIN_OPERATIONS, ADMIN_PREFIX, type AdminContext, type AdminOperations, type AdminOperationSpec } from "./operations";
import { teamOperations } from "./teams";
import { workspaceOperations } from "./workspaces";

/** How the audit log names the admin credential: enough to tell tokens apart, nothing to use. */
export function adminActor(adminToken: string): string {
  return `admin-token:${createHash("sha256").update(adminToken).digest("hex").slice(0, 12)}`;
}

/** The management API, mounted on the internal port only: every operation of its table, behind the admin token. */
export function adminRoutes(deps: AdminDeps, auth: AdminAuthDeps) {
  const actor = adminActor(auth.adminToken);
  const app = new Elysia({ prefix: ADMIN_PREFIX, normalize: "typebox" }).use(requireAdminToken(auth));
  return mountOperations<typeof app, AdminOperations, AdminContext>(
    app,
    ADMIN_OPERATIONS,
    {
      ...workspaceOperations(deps),
      ...teamOperations(deps),
      ...memberOperations(deps),
      ...apiKeyOperations(deps),
      ...auditLogOperations(deps),
    },
    {
      context: (context): AdminContext => {
        const request = context.request as Request;
        // The deadline the request is answered within (app.ts): the very one, so that no change commits after that answer.
        return { caller: { requestId: requestIdOf(request), actor, deadline: deadlineOf(request) } };
      },
      describe: (operationId, operation) => describeAdminRoute(operationId, operation as AdminOperationSpec),
      validationCode: "validation_error",
    },
  );
}

import type { AdminDeps } from "../admin-context";
import type { AdminHandlers } from "../operations";
import * as auditLog from "./service";

export function auditLogOperations(deps: AdminDeps): AdminHandlers<"getAuditLog"> {
  return {
    getAuditLog: ({ params, query }) => auditLog.readAuditLog(deps, params.ws, query),
  };
}

import { ApiError, isUuid, readList, resolvePaging } from "@ws/shared";
import { countAuditEntries, listAuditEntries, type AuditEntryRow } from "../../identity/audit-log";
import { workspaceExists } from "../../identity/workspaces";
import type { AdminDeps } from "../admin-context";

function presentEntry(row: AuditEntryRow) {
  return { ...row, resource_type: row.resource_type as "workspace" | "team" | "member" | "api_key", created_at: row.created_at.toISOString() };
}

/** Newest first. A deleted workspace's log stays readable: 404 only when the workspace never had one. */
export async function readAuditLog(deps: AdminDeps, workspaceId: string, query: { page?: number; per_page?: number }) {
  if (!isUuid(workspaceId)) throw ApiError.notFound("No such workspace.");
  const paging = resolvePaging(query, "validation_error");
  const list = await readList(deps.sql, paging, {
    count: (tx) => countAuditEntries(tx, workspaceId),
    rows: (tx, limit, offset) => listAuditEntries(tx, workspaceId, { limit, offset }),
  });
  if (list.total === 0 && !(await workspaceExists(deps.sql, workspaceId))) throw ApiError.notFound("No such workspace.");
  return { ...list, data: list.data.map(presentEntry) };
}

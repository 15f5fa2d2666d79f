import type { Sql } from "@ws/shared";

export interface AuditEntryRow {
  id: string;
  workspace_id: string;
  action: string;
  resource_type: string;
  resource_id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  request_id: string;
  actor: string;
  created_at: Date;
}

const ENTRY_COLUMNS = (sql: Sql) => sql`
  id, workspace_id, action, resource_type, resource_id, before, after, request_id, actor, created_at`;

export async function insertAuditEntry(sql: Sql, entry: Omit<AuditEntryRow, "created_at">): Promise<AuditEntryRow> {
  const [row] = await sql<AuditEntryRow[]>`
    insert into audit_log (id, workspace_id, action, resource_type, resource_id, before, after, request_id, actor)
    values (${entry.id}, ${entry.workspace_id}, ${entry.action}, ${entry.resource_type}, ${entry.resource_id},
            ${entry.before === null ? null : sql.json(entry.before as never)}, ${entry.after === null ? null : sql.json(entry.after as never)},
            ${entry.request_id}, ${entry.actor})
    returning ${ENTRY_COLUMNS(sql)}`;
  return row!;
}

/** Newest first, by the clock when each entry was written; the rare equal times are ordered by id, which rises within a process. */
export async function listAuditEntries(sql: Sql, workspaceId: string, page: { limit: number; offset: number }): Promise<AuditEntryRow[]> {
  return sql<AuditEntryRow[]>`
    select ${ENTRY_COLUMNS(sql)} from audit_log where workspace_id = ${workspaceId}
    order by created_at desc, id desc limit ${page.limit} offset ${page.offset}`;
}

export async function countAuditEntries(sql: Sql, workspaceId: string): Promise<number> {
  const [row] = await sql<{ total: number }[]>`select count(*)::int as total from audit_log where workspace_id = ${workspaceId}`;
  return row!.total;
}

import type { Sql } from "@ws/shared";

export interface WorkspaceRow {
  id: string;
  name: string;
  created_at: Date;
}

export async function insertWorkspace(sql: Sql, workspace: { id: string; name: string }): Promise<WorkspaceRow> {
  const [row] = await sql<WorkspaceRow[]>`
    insert into workspaces (id, name) values (${workspace.id}, ${workspace.name})
    returning id, name, created_at`;
  return row!;
}

export async function workspaceExists(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql`select 1 from workspaces where id = ${id}`;
  return rows.length > 0;
}

export async function findWorkspace(sql: Sql, id: string): Promise<WorkspaceRow | undefined> {
  const [row] = await sql<WorkspaceRow[]>`select id, name, created_at from workspaces where id = ${id}`;
  return row;
}

/** Case-insensitive substring of the name, taken literally (strpos has no wildcards). */
function nameFilter(sql: Sql, name: string | undefined) {
  return name === undefined ? sql`` : sql`where strpos(lower(name), lower(${name})) > 0`;
}

export async function listWorkspaces(sql: Sql, filter: { name?: string }, page: { limit: number; offset: number }): Promise<WorkspaceRow[]> {
  return sql<WorkspaceRow[]>`
    select id, name, created_at from workspaces ${nameFilter(sql, filter.name)}
    order by created_at, id limit ${page.limit} offset ${page.offset}`;
}

export async function countWorkspaces(sql: Sql, filter: { name?: string }): Promise<number> {
  const [row] = await sql<{ total: number }[]>`select count(*)::int as total from workspaces ${nameFilter(sql, filter.name)}`;
  return row!.total;
}

/** Deletes the workspace and, by cascade, its teams, members and keys; false when there was none. */
export async function deleteWorkspace(sql: Sql, id: string): Promise<boolean> {
  const result = await sql`delete from workspaces where id = ${id}`;
  return result.count > 0;
}

/** Raises the credential epoch inside the transaction that changes a key's powers. */
export async function bumpAuthEpoch(sql: Sql, workspaceId: string): Promise<string> {
  const [row] = await sql<{ auth_epoch: string }[]>`
    update workspaces set auth_epoch = auth_epoch + 1 where id = ${workspaceId} returning auth_epoch::text`;
  return row!.auth_epoch;
}

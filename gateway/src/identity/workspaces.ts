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

/** Raises the credential epoch inside the transaction that changes a key's powers. */
export async function bumpAuthEpoch(sql: Sql, workspaceId: string): Promise<string> {
  const [row] = await sql<{ auth_epoch: string }[]>`
    update workspaces set auth_epoch = auth_epoch + 1 where id = ${workspaceId} returning auth_epoch::text`;
  return row!.auth_epoch;
}

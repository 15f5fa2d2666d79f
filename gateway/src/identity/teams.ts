import type { Sql } from "@ws/shared";

export interface TeamRow {
  id: string;
  name: string;
}

export async function insertTeam(sql: Sql, team: { id: string; workspaceId: string; name: string }): Promise<TeamRow> {
  const [row] = await sql<TeamRow[]>`
    insert into teams (id, workspace_id, name) values (${team.id}, ${team.workspaceId}, ${team.name})
    returning id, name`;
  return row!;
}

/** The subset of the given ids that are teams of the workspace. */
export async function existingTeamIds(sql: Sql, workspaceId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await sql<{ id: string }[]>`
    select id from teams where workspace_id = ${workspaceId} and id = any(${ids}::uuid[])`;
  return rows.map((row) => row.id);
}

export async function listTeams(sql: Sql, workspaceId: string, page: { limit: number; offset: number }): Promise<TeamRow[]> {
  return sql<TeamRow[]>`
    select id, name from teams where workspace_id = ${workspaceId}
    order by created_at, id limit ${page.limit} offset ${page.offset}`;
}

export async function countTeams(sql: Sql, workspaceId: string): Promise<number> {
  const [row] = await sql<{ total: number }[]>`select count(*)::int as total from teams where workspace_id = ${workspaceId}`;
  return row!.total;
}

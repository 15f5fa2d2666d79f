import type { Role, Sql } from "@ws/shared";

export interface MemberRow {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  active: boolean;
  team_ids: string[];
}

const MEMBER_COLUMNS = (sql: Sql) => sql`
  m.id, m.email, m.name, m.role, m.active,
  coalesce((select array_agg(tm.team_id order by tm.team_id) from team_members tm where tm.member_id = m.id), '{}') as team_ids`;

export async function insertMember(
  sql: Sql,
  member: { id: string; workspaceId: string; email: string; name: string | null; role: Role },
): Promise<void> {
  await sql`
    insert into members (id, workspace_id, email, name, role)
    values (${member.id}, ${member.workspaceId}, ${member.email}, ${member.name}, ${member.role})`;
}

/**
 * The member; with `lock`, locked until the transaction ends, so concurrent
 * changes of one member each see the one before.
 */
export async function findMember(sql: Sql, workspaceId: string, id: string, options: { lock?: boolean } = {}): Promise<MemberRow | undefined> {
  const [row] = await sql<MemberRow[]>`
    select ${MEMBER_COLUMNS(sql)} from members m where m.workspace_id = ${workspaceId} and m.id = ${id} ${options.lock ? sql`for update of m` : sql``}`;
  return row;
}

export async function memberEmailTaken(sql: Sql, workspaceId: string, email: string): Promise<boolean> {
  const rows = await sql`select 1 from members where workspace_id = ${workspaceId} and lower(email) = lower(${email})`;
  return rows.length > 0;
}

export async function listMembers(sql: Sql, workspaceId: string, page: { limit: number; offset: number }): Promise<MemberRow[]> {
  return sql<MemberRow[]>`
    select ${MEMBER_COLUMNS(sql)} from members m where m.workspace_id = ${workspaceId}
    order by m.created_at, m.id limit ${page.limit} offset ${page.offset}`;
}

export async function countMembers(sql: Sql, workspaceId: string): Promise<number> {
  const [row] = await sql<{ total: number }[]>`select count(*)::int as total from members where workspace_id = ${workspaceId}`;
  return row!.total;
}

/** Omitted fields keep their values; a null name clears it. */
export async function updateMember(sql: Sql, id: string, changes: { role?: Role; active?: boolean; name?: string | null }): Promise<void> {
  if (changes.role !== undefined) await sql`update members set role = ${changes.role} where id = ${id}`;
  if (changes.active !== undefined) await sql`update members set active = ${changes.active} where id = ${id}`;
  if (changes.name !== undefined) await sql`update members set name = ${changes.name} where id = ${id}`;
}

export async function replaceTeamMemberships(sql: Sql, memberId: string, teamIds: string[]): Promise<void> {
  await sql`delete from team_members where member_id = ${memberId}`;
  if (teamIds.length > 0) {
    await sql`
      insert into team_members (team_id, member_id)
      select unnest(${teamIds}::uuid[]), ${memberId}`;
  }
}

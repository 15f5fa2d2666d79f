import type { ListVisibility, Sql } from "@ws/shared";
import type { Calendar } from "@ws/shared";

interface CalendarRow {
  id: string;
  team_id: string | null;
  name: string;
  created_at: Date;
}

export interface NewCalendar {
  id: string;
  workspaceId: string;
  teamId: string | null;
  name: string;
  createdBy: string;
  createdAt: Date;
}

export function toCalendar(row: CalendarRow): Calendar {
  return { id: row.id, name: row.name, team_id: row.team_id, created_at: row.created_at.toISOString() };
}

/** The SQL condition for "a calendar (aliased c) this principal may list". */
export function visibleCalendars(sql: Sql, workspaceId: string, visibility: ListVisibility) {
  return sql`c.workspace_id = ${workspaceId}
    and (c.team_id = any(${sql.array(visibility.teamIds)}::uuid[]) or (${visibility.includeWorkspaceLevel}::boolean and c.team_id is null))`;
}

export async function insertCalendar(sql: Sql, calendar: NewCalendar): Promise<Calendar> {
  const [row] = await sql<CalendarRow[]>`
    insert into calendars (id, workspace_id, team_id, name, created_by, created_at)
    values (${calendar.id}, ${calendar.workspaceId}, ${calendar.teamId}, ${calendar.name}, ${calendar.createdBy}, ${calendar.createdAt})
    returning id, team_id, name, created_at`;
  return toCalendar(row!);
}

/** A calendar of the workspace, whoever may see it; access is the caller's decision. */
export async function findCalendar(sql: Sql, workspaceId: string, id: string): Promise<{ id: string; teamId: string | null } | null> {
  const [row] = await sql<{ id: string; team_id: string | null }[]>`
    select id, team_id from calendars where workspace_id = ${workspaceId} and id = ${id}`;
  return row ? { id: row.id, teamId: row.team_id } : null;
}

export async function countCalendars(sql: Sql, workspaceId: string, visibility: ListVisibility): Promise<number> {
  const [row] = await sql<{ total: number }[]>`
    select count(*)::int as total from calendars c where ${visibleCalendars(sql, workspaceId, visibility)}`;
  return row!.total;
}

export async function listCalendars(
  sql: Sql,
  workspaceId: string,
  visibility: ListVisibility,
  limit: number,
  offset: number,
): Promise<Calendar[]> {
  const rows = await sql<CalendarRow[]>`
    select c.id, c.team_id, c.name, c.created_at from calendars c
    where ${visibleCalendars(sql, workspaceId, visibility)}
    order by c.created_at, c.id
    limit ${limit} offset ${offset}`;
  return rows.map(toCalendar);
}

/** Every calendar of the workspace; how many there were. */
export async function deleteWorkspaceCalendars(sql: Sql, workspaceId: string): Promise<number> {
  const result = await sql`delete from calendars where workspace_id = ${workspaceId}`;
  return result.count;
}

import { versionCondition, type ListVisibility, type Sql } from "@ws/shared";
import type { Calendar } from "@ws/shared";

/** The one module that reads and writes the calendars table. */

interface CalendarRow {
  id: string;
  team_id: string | null;
  name: string;
  created_at: string;
  updated_at: string;
}

export interface NewCalendar {
  id: string;
  workspaceId: string;
  teamId: string | null;
  name: string;
  createdBy: string;
  createdAt: Date;
}

/**
 * Both instants to the microsecond, rendered by Postgres (the entity tag names
 * updated_at exactly): right after creation the two strings are equal.
 */
const COLUMNS = `c.id, c.team_id, c.name,
  to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at,
  to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as updated_at`;

export function toCalendar(row: CalendarRow): Calendar {
  return { id: row.id, name: row.name, team_id: row.team_id, created_at: row.created_at, updated_at: row.updated_at };
}

/** The SQL condition for "a calendar (aliased c) this principal may list". */
export function visibleCalendars(sql: Sql, workspaceId: string, visibility: ListVisibility) {
  return sql`c.workspace_id = ${workspaceId}
    and (c.team_id = any(${sql.array(visibility.teamIds)}::uuid[]) or (${visibility.includeWorkspaceLevel}::boolean and c.team_id is null))`;
}

export async function insertCalendar(sql: Sql, calendar: NewCalendar): Promise<Calendar> {
  const [row] = await sql<CalendarRow[]>`
    with c as (insert into calendars (id, workspace_id, team_id, name, created_by, created_at, updated_at)
      values (${calendar.id}, ${calendar.workspaceId}, ${calendar.teamId}, ${calendar.name}, ${calendar.createdBy}, ${calendar.createdAt}, ${calendar.createdAt})
      returning *)
    select ${sql.unsafe(COLUMNS)} from c`;
  return toCalendar(row!);
}

/**
 * How a found calendar is locked until the transaction ends: "update" before it
 * is deleted; "no key update" before it is renamed, which does not hold off
 * events being written into it; "key share" while an event is written into it,
 * which holds off its delete (and so the event's foreign key) but not other
 * readers or a rename.
 */
export type CalendarLock = "none" | "update" | "no key update" | "key share";

const LOCK_CLAUSES = {
  none: "",
  update: "for update",
  "no key update": "for no key update",
  "key share": "for key share",
} as const satisfies Record<CalendarLock, string>;

/** A calendar of the workspace, whoever may see it (access is the caller's decision). */
export async function findCalendar(sql: Sql, workspaceId: string, id: string, lock: CalendarLock = "none"): Promise<Calendar | null> {
  const [row] = await sql<CalendarRow[]>`
    select ${sql.unsafe(COLUMNS)} from calendars c where c.workspace_id = ${workspaceId} and c.id = ${id}
    ${sql.unsafe(LOCK_CLAUSES[lock])}`;
  return row ? toCalendar(row) : null;
}

/** Null when the calendar is gone or not at an accepted version. */
export async function renameCalendar(sql: Sql, workspaceId: string, id: string, name: string, versions?: string[]): Promise<Calendar | null> {
  const [row] = await sql<CalendarRow[]>`
    with c as (update calendars set name = ${name}, updated_at = greatest(clock_timestamp(), updated_at + interval '1 microsecond')
      where workspace_id = ${workspaceId} and id = ${id} ${versionCondition(sql, versions)}
      returning *)
    select ${sql.unsafe(COLUMNS)} from c`;
  return row ? toCalendar(row) : null;
}

/** Its events and their attendees go with it (the foreign keys cascade). False when gone or not at an accepted version. */
export async function deleteCalendar(sql: Sql, workspaceId: string, id: string, versions?: string[]): Promise<boolean> {
  const result = await sql`delete from calendars where workspace_id = ${workspaceId} and id = ${id} ${versionCondition(sql, versions)}`;
  return result.count > 0;
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
    select ${sql.unsafe(COLUMNS)} from calendars c
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

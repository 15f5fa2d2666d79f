import { versionCondition, type Attendee, type AttendeeStatus, type CalendarEvent, type ListVisibility, type Sql } from "@ws/shared";
import { visibleCalendars } from "../calendars/repository";

export interface NewEvent {
  id: string;
  workspaceId: string;
  calendarId: string;
  title: string | null;
  startsAt: Date;
  endsAt: Date;
  isAllDay: boolean;
  location: string | null;
  conferenceUrl: string | null;
  notes: string | null;
  reminderMinutesBeforeStart: number | null;
  attendees: { email: string | null; name: string | null; status: AttendeeStatus }[];
  createdBy: string;
  createdAt: Date;
}

export interface EventFilter {
  workspaceId: string;
  visibility: ListVisibility;
  calendarId?: string;
  startsFrom?: Date;
  startsBefore?: Date;
}

interface EventRow {
  id: string;
  calendar_id: string;
  title: string | null;
  starts_at: string;
  ends_at: string;
  is_all_day: boolean;
  location: string | null;
  conference_url: string | null;
  notes: string | null;
  reminder_minutes_before_start: number | null;
  updated_at: string;
}

interface AttendeeRow {
  event_id: string;
  email: string | null;
  name: string | null;
  status: AttendeeStatus;
}

/**
 * The columns an event is answered from, for a table aliased e. Instants are
 * rendered by Postgres: the driver's Date parsing reads years below 100 as 19xx.
 * updated_at keeps its microseconds: the entity tag names it exactly.
 */
function eventColumns(sql: Sql) {
  return sql`e.id, e.calendar_id, e.title, ${utc(sql, sql`e.starts_at`)} as starts_at, ${utc(sql, sql`e.ends_at`)} as ends_at,
    e.is_all_day, e.location, e.conference_url, e.notes, e.reminder_minutes_before_start,
    to_char(e.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as updated_at`;
}

function utc(sql: Sql, column: ReturnType<Sql>) {
  return sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

function toAttendee(row: Pick<AttendeeRow, "email" | "name" | "status">): Attendee {
  return { ...(row.email === null ? {} : { email: row.email }), ...(row.name === null ? {} : { name: row.name }), status: row.status };
}

function toEvent(row: EventRow, attendees: Attendee[]): CalendarEvent {
  return {
    id: row.id,
    calendar_id: row.calendar_id,
    title: row.title,
    starts_at: row.starts_at,
    ends_at: row.ends_at,
    is_all_day: row.is_all_day,
    location: row.location,
    conference_url: row.conference_url,
    attendees,
    ...(row.notes === null ? {} : { notes: row.notes }),
    ...(row.reminder_minutes_before_start === null ? {} : { reminder_minutes_before_start: row.reminder_minutes_before_start }),
    updated_at: row.updated_at,
  };
}

export async function insertEvent(sql: Sql, event: NewEvent): Promise<CalendarEvent> {
  const [row] = await sql<EventRow[]>`
    with e as (insert into calendar_events (id, workspace_id, calendar_id, title, starts_at, ends_at, is_all_day, location, conference_url,
      notes, reminder_minutes_before_start, created_by, created_at, updated_at)
    values (${event.id}, ${event.workspaceId}, ${event.calendarId}, ${event.title}, ${event.startsAt}, ${event.endsAt}, ${event.isAllDay},
      ${event.location}, ${event.conferenceUrl}, ${event.notes}, ${event.reminderMinutesBeforeStart}, ${event.createdBy}, ${event.createdAt},
      ${event.createdAt})
    returning *)
    select ${eventColumns(sql)} from e`;
  await insertAttendees(sql, event.id, event.attendees);
  return toEvent(row!, event.attendees.map(toAttendee));
}

async function insertAttendees(sql: Sql, eventId: string, attendees: NewEvent["attendees"]): Promise<void> {
  if (attendees.length === 0) return;
  const rows = attendees.map((attendee, position) => ({ event_id: eventId, position, ...attendee }));
  await sql`insert into calendar_event_attendees ${sql(rows, "event_id", "position", "email", "name", "status")}`;
}

async function attendeesOf(sql: Sql, eventIds: string[]): Promise<Map<string, Attendee[]>> {
  const attendees = await sql<AttendeeRow[]>`
    select event_id, email, name, status from calendar_event_attendees
    where event_id = any(${sql.array(eventIds)}::uuid[])
    order by event_id, position`;
  const byEvent = new Map<string, Attendee[]>();
  for (const attendee of attendees) {
    const list = byEvent.get(attendee.event_id) ?? [];
    list.push(toAttendee(attendee));
    byEvent.set(attendee.event_id, list);
  }
  return byEvent;
}

/** The event and the team of its calendar (access is the caller's decision); the event row is locked when `forUpdate`. */
export async function findEvent(
  sql: Sql,
  workspaceId: string,
  id: string,
  forUpdate = false,
): Promise<{ event: CalendarEvent; teamId: string | null } | null> {
  const [row] = await sql<(EventRow & { team_id: string | null })[]>`
    select ${eventColumns(sql)}, c.team_id from calendar_events e join calendars c on c.id = e.calendar_id
    where e.workspace_id = ${workspaceId} and e.id = ${id}
    ${forUpdate ? sql`for update of e` : sql``}`;
  if (!row) return null;
  const attendees = await attendeesOf(sql, [row.id]);
  return { event: toEvent(row, attendees.get(row.id) ?? []), teamId: row.team_id };
}

/** The columns an update may set, by name; only those given are written. */
export interface EventChanges {
  calendar_id?: string;
  title?: string | null;
  starts_at?: Date;
  ends_at?: Date;
  is_all_day?: boolean;
  location?: string | null;
  conference_url?: string | null;
  notes?: string | null;
  reminder_minutes_before_start?: number | null;
}

/**
 * Writes the given columns (and replaces the attendees when given); updated_at
 * moves strictly forward. Null when the event is gone or not at an accepted version.
 */
export async function updateEvent(
  sql: Sql,
  workspaceId: string,
  id: string,
  changes: EventChanges,
  attendees: NewEvent["attendees"] | undefined,
  versions?: string[],
): Promise<CalendarEvent | null> {
  const columns = Object.keys(changes) as (keyof EventChanges)[];
  const nextVersion = sql`updated_at = greatest(clock_timestamp(), updated_at + interval '1 microsecond')`;
  // The driver writes `"column" = value` pairs for a helper only after `update` in the same fragment.
  const update = columns.length > 0
    ? sql`update calendar_events set ${sql(changes, columns)}, ${nextVersion}`
    : sql`update calendar_events set ${nextVersion}`;
  const [row] = await sql<EventRow[]>`
    with e as (${update}
      where workspace_id = ${workspaceId} and id = ${id} ${versionCondition(sql, versions)}
      returning *)
    select ${eventColumns(sql)} from e`;
  if (!row) return null;
  if (attendees !== undefined) {
    await sql`delete from calendar_event_attendees where event_id = ${id}`;
    await insertAttendees(sql, id, attendees);
  }
  return toEvent(row, (await attendeesOf(sql, [id])).get(id) ?? []);
}

/** Its attendees go with it. False when gone or not at an accepted version. */
export async function deleteEvent(sql: Sql, workspaceId: string, id: string, versions?: string[]): Promise<boolean> {
  const result = await sql`delete from calendar_events where workspace_id = ${workspaceId} and id = ${id} ${versionCondition(sql, versions)}`;
  return result.count > 0;
}

function filterCondition(sql: Sql, filter: EventFilter) {
  return sql`e.workspace_id = ${filter.workspaceId}
    and ${visibleCalendars(sql, filter.workspaceId, filter.visibility)}
    ${filter.calendarId === undefined ? sql`` : sql`and e.calendar_id = ${filter.calendarId}`}
    ${filter.startsFrom === undefined ? sql`` : sql`and e.starts_at >= ${filter.startsFrom}`}
    ${filter.startsBefore === undefined ? sql`` : sql`and e.starts_at < ${filter.startsBefore}`}`;
}

export async function countEvents(sql: Sql, filter: EventFilter): Promise<number> {
  const [row] = await sql<{ total: number }[]>`
    select count(*)::int as total from calendar_events e join calendars c on c.id = e.calendar_id
    where ${filterCondition(sql, filter)}`;
  return row!.total;
}

export async function listEvents(sql: Sql, filter: EventFilter, limit: number, offset: number): Promise<CalendarEvent[]> {
  const rows = await sql<EventRow[]>`
    select ${eventColumns(sql)} from calendar_events e join calendars c on c.id = e.calendar_id
    where ${filterCondition(sql, filter)}
    order by e.starts_at, e.id
    limit ${limit} offset ${offset}`;
  if (rows.length === 0) return [];
  const byEvent = await attendeesOf(sql, rows.map((row) => row.id));
  return rows.map((row) => toEvent(row, byEvent.get(row.id) ?? []));
}

/** Every event of the workspace (their attendees follow by cascade); how many there were. */
export async function deleteWorkspaceEvents(sql: Sql, workspaceId: string): Promise<number> {
  const result = await sql`delete from calendar_events where workspace_id = ${workspaceId}`;
  return result.count;
}

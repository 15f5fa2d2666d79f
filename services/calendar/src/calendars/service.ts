import {
  ApiError,
  assertCanAccess,
  isUuid,
  listVisibility,
  preconditionFailed,
  readList,
  requiredVersions,
  resolveCreateTeam,
  resolvePaging,
  uuidv7,
  writeWithin,
  type Deadline,
  type Pool,
  type Principal,
  type Sql,
  type TransactionSql,
} from "@ws/shared";
import type { Calendar, CalendarList, CalendarListQuery, CreateCalendarBody, UpdateCalendarBody } from "@ws/shared";
import * as calendars from "./repository";

const WHAT = "The calendar";

export async function createCalendar(sql: Pool, principal: Principal, body: CreateCalendarBody, deadline: Deadline): Promise<Calendar> {
  const teamId = calendarTeam(principal, body.team_id);
  return writeWithin(sql, deadline, (tx) =>
    calendars.insertCalendar(tx, {
      id: uuidv7(),
      workspaceId: principal.workspace_id,
      teamId,
      name: body.name,
      createdBy: principal.member_id,
      createdAt: new Date(),
    }),
  );
}

/**
 * The team rules of every resource, answered in the calendar's dialect: the
 * calendar keeps 422 for ends_at before starts_at alone, so a missing team_id
 * for a key with several teams is a 400 bad_request here.
 */
function calendarTeam(principal: Principal, requested: string | null | undefined): string | null {
  try {
    return resolveCreateTeam(principal, requested);
  } catch (error) {
    if (error instanceof ApiError && error.code === "validation_error") {
      throw new ApiError("bad_request", error.message, { details: error.details });
    }
    throw error;
  }
}

export async function listCalendars(sql: Pool, principal: Principal, query: CalendarListQuery): Promise<CalendarList> {
  const paging = resolvePaging(query, "bad_request");
  const visibility = listVisibility(principal);
  return readList(sql, paging, {
    count: (tx) => calendars.countCalendars(tx, principal.workspace_id, visibility),
    rows: (tx, limit, offset) => calendars.listCalendars(tx, principal.workspace_id, visibility, limit, offset),
  });
}

/** An unknown, malformed or hidden calendar is 404, one outside the key's teams 403. */
export async function visibleCalendar(sql: Sql, principal: Principal, id: string, lock: calendars.CalendarLock = "none"): Promise<Calendar> {
  const calendar = isUuid(id) ? await calendars.findCalendar(sql, principal.workspace_id, id, lock) : null;
  if (!calendar) throw ApiError.notFound(`${WHAT} does not exist.`);
  assertCanAccess(principal, calendar.team_id, WHAT);
  return calendar;
}

/**
 * A calendar that can receive events from this key (create, or an event moved
 * into it). Checked in the transaction that writes the event and held there
 * against a concurrent delete: a calendar deleted first is the 404 of any
 * unknown calendar, never the event's foreign key failing as a 500.
 */
export async function requireWritableCalendar(tx: TransactionSql, principal: Principal, calendarId: string): Promise<void> {
  await visibleCalendar(tx, principal, calendarId, "key share");
}

export function getCalendar(sql: Pool, principal: Principal, id: string): Promise<Calendar> {
  return visibleCalendar(sql, principal, id);
}

/** Locked while access is checked, so the version condition in the update itself is all that can fail after it: a 412. */
export function renameCalendar(sql: Pool, principal: Principal, id: string, body: UpdateCalendarBody, deadline: Deadline, ifMatch?: string): Promise<Calendar> {
  return writeWithin(sql, deadline, async (tx) => {
    await visibleCalendar(tx, principal, id, "no key update");
    const renamed = await calendars.renameCalendar(tx, principal.workspace_id, id, body.name, requiredVersions(ifMatch, id));
    if (!renamed) throw preconditionFailed(WHAT);
    return renamed;
  }) as Promise<Calendar>;
}

/** The calendar's events and their attendees are deleted with it, in the same transaction. */
export async function deleteCalendar(sql: Pool, principal: Principal, id: string, deadline: Deadline, ifMatch?: string): Promise<void> {
  await writeWithin(sql, deadline, async (tx) => {
    await visibleCalendar(tx, principal, id, "update");
    if (!(await calendars.deleteCalendar(tx, principal.workspace_id, id, requiredVersions(ifMatch, id)))) throw preconditionFailed(WHAT);
  });
}

import { ApiError, assertCanAccess, listVisibility, readList, resolveCreateTeam, resolvePaging, uuidv7, writeWithin, type Deadline, type Pool, type Principal } from "@ws/shared";
import type { Calendar, CalendarList, CalendarListQuery, CreateCalendarBody } from "@ws/shared";
import * as calendars from "./repository";

const MAX_NAME_CODE_POINTS = 255;

export async function createCalendar(sql: Pool, principal: Principal, body: CreateCalendarBody, deadline: Deadline): Promise<Calendar> {
  if (body.name.trim() === "" || [...body.name].length > MAX_NAME_CODE_POINTS) {
    throw ApiError.badRequest("name must be 1 to 255 characters and not only whitespace.", ["name"]);
  }
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
 * Contract 6's team rules, answered in the calendar's dialect: contract 3 keeps
 * 422 on the calendar for ends_at before starts_at alone, so an unusable
 * team_id is a 400 bad_request here.
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

/** Contract 5: an unknown or hidden calendar is 404, one outside the key's teams 403. */
export async function requireWritableCalendar(sql: Pool, principal: Principal, calendarId: string): Promise<void> {
  const calendar = await calendars.findCalendar(sql, principal.workspace_id, calendarId);
  if (!calendar) throw ApiError.notFound("The calendar does not exist.");
  assertCanAccess(principal, calendar.teamId, "The calendar");
}

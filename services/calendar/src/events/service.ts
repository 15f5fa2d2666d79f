import {
  ApiError,
  UPDATABLE_EVENT_FIELDS,
  assertCanAccess,
  isUuid,
  listVisibility,
  preconditionFailed,
  readList,
  requiredVersions,
  resolvePaging,
  uuidv7,
  writeWithin,
  type Deadline,
  type Pool,
  type Principal,
  type Sql,
} from "@ws/shared";
import type { AttendeeInput, CalendarEvent, CalendarEventList, CreateEventBody, EventListQuery, UpdateEventBody } from "@ws/shared";
import { requireWritableCalendar } from "../calendars/service";
import { parseInstant } from "../common/date-time";
import * as events from "./repository";

const WHAT = "The event";

function attendeeRows(attendees: AttendeeInput[]) {
  return attendees.map((attendee) => ({
    email: attendee.email ?? null,
    name: attendee.name ?? null,
    status: attendee.status ?? ("needs_action" as const),
  }));
}

function assertInOrder(startsAt: Date, endsAt: Date): void {
  if (endsAt < startsAt) throw ApiError.validation(["ends_at"], "ends_at must not be before starts_at.", "order");
}

/** The body's shape is the route schema's; the rules across fields are here. */
export async function createEvent(sql: Pool, principal: Principal, body: CreateEventBody, deadline: Deadline): Promise<CalendarEvent> {
  const startsAt = parseInstant(body.starts_at, "starts_at");
  const endsAt = parseInstant(body.ends_at, "ends_at");
  assertInOrder(startsAt, endsAt);
  return writeWithin(sql, deadline, async (tx) => {
    await requireWritableCalendar(tx, principal, body.calendar_id);
    return events.insertEvent(tx, {
      id: uuidv7(),
      workspaceId: principal.workspace_id,
      calendarId: body.calendar_id.toLowerCase(),
      title: body.title ?? null,
      startsAt,
      endsAt,
      isAllDay: body.is_all_day ?? false,
      location: body.location ?? null,
      conferenceUrl: body.conference_url ?? null,
      notes: body.notes ?? null,
      reminderMinutesBeforeStart: body.reminder_minutes_before_start ?? null,
      attendees: attendeeRows(body.attendees ?? []),
      createdBy: principal.member_id,
      createdAt: new Date(),
    });
  }) as Promise<CalendarEvent>;
}

/** A calendar_id filter only narrows what the key may see, so an unknown one lists nothing. */
export async function listEvents(sql: Pool, principal: Principal, query: EventListQuery): Promise<CalendarEventList> {
  const paging = resolvePaging(query, "bad_request");
  const filter: events.EventFilter = {
    workspaceId: principal.workspace_id,
    visibility: listVisibility(principal),
    calendarId: query.calendar_id?.toLowerCase(),
    startsFrom: query.starts_after === undefined ? undefined : parseInstant(query.starts_after, "starts_after"),
    startsBefore: query.starts_before === undefined ? undefined : parseInstant(query.starts_before, "starts_before"),
  };
  return readList(sql, paging, {
    count: (tx) => events.countEvents(tx, filter),
    rows: (tx, limit, offset) => events.listEvents(tx, filter, limit, offset),
  });
}

/** An event answers as its calendar does: unknown, malformed or hidden is 404, outside the key's teams 403. */
async function visibleEvent(sql: Sql, principal: Principal, id: string, forUpdate = false): Promise<CalendarEvent> {
  const found = isUuid(id) ? await events.findEvent(sql, principal.workspace_id, id, forUpdate) : null;
  if (!found) throw ApiError.notFound(`${WHAT} does not exist.`);
  assertCanAccess(principal, found.teamId, WHAT);
  return found.event;
}

export function getEvent(sql: Pool, principal: Principal, id: string): Promise<CalendarEvent> {
  return visibleEvent(sql, principal, id);
}

/**
 * The fields given replace theirs, as in a page update. The event is locked
 * while access and the order of its times are checked, so the version
 * condition in the update itself is all that can fail after them: a 412.
 */
export async function updateEvent(sql: Pool, principal: Principal, id: string, body: UpdateEventBody, deadline: Deadline, ifMatch?: string): Promise<CalendarEvent> {
  const given = UPDATABLE_EVENT_FIELDS.filter((field) => body[field] !== undefined);
  if (given.length === 0) {
    throw ApiError.badRequest(`Send at least one of ${UPDATABLE_EVENT_FIELDS.join(", ")}.`, [...UPDATABLE_EVENT_FIELDS]);
  }
  const startsAt = body.starts_at === undefined ? undefined : parseInstant(body.starts_at, "starts_at");
  const endsAt = body.ends_at === undefined ? undefined : parseInstant(body.ends_at, "ends_at");
  return writeWithin(sql, deadline, async (tx) => {
    const current = await visibleEvent(tx, principal, id, true);
    assertInOrder(startsAt ?? new Date(current.starts_at), endsAt ?? new Date(current.ends_at));
    const calendarId = body.calendar_id?.toLowerCase();
    if (calendarId !== undefined && calendarId !== current.calendar_id) await requireWritableCalendar(tx, principal, calendarId);
    // Every given column as sent, but the ones read above: the calendar id normalised, the times parsed.
    const changes: events.EventChanges = {
      ...Object.fromEntries(given.filter((field) => field !== "attendees").map((field) => [field, body[field]])),
      ...(calendarId === undefined ? {} : { calendar_id: calendarId }),
      ...(startsAt === undefined ? {} : { starts_at: startsAt }),
      ...(endsAt === undefined ? {} : { ends_at: endsAt }),
    };
    const attendees = body.attendees === undefined ? undefined : attendeeRows(body.attendees);
    const updated = await events.updateEvent(tx, principal.workspace_id, id, changes, attendees, requiredVersions(ifMatch, id));
    if (!updated) throw preconditionFailed(WHAT);
    return updated;
  }) as Promise<CalendarEvent>;
}

export async function deleteEvent(sql: Pool, principal: Principal, id: string, deadline: Deadline, ifMatch?: string): Promise<void> {
  await writeWithin(sql, deadline, async (tx) => {
    await visibleEvent(tx, principal, id, true);
    if (!(await events.deleteEvent(tx, principal.workspace_id, id, requiredVersions(ifMatch, id)))) throw preconditionFailed(WHAT);
  });
}

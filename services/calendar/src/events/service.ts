import { ApiError, listVisibility, readList, resolvePaging, uuidv7, writeWithin, type Deadline, type Pool, type Principal } from "@ws/shared";
import type { CalendarEvent, CalendarEventList, CreateEventBody, EventListQuery } from "@ws/shared";
import { requireWritableCalendar } from "../calendars/service";
import { parseInstant } from "../common/date-time";
import * as events from "./repository";

/** Spec 4.1 with contract 5: the body's shape is the route schema's; the rules across fields are here. */
export async function createEvent(sql: Pool, principal: Principal, body: CreateEventBody, deadline: Deadline): Promise<CalendarEvent> {
  const startsAt = parseInstant(body.starts_at, "starts_at");
  const endsAt = parseInstant(body.ends_at, "ends_at");
  if (endsAt < startsAt) throw ApiError.validation(["ends_at"], "ends_at must not be before starts_at.", "order");
  await requireWritableCalendar(sql, principal, body.calendar_id);
  return writeWithin(sql, deadline, (tx) =>
    events.insertEvent(tx, {
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
      attendees: (body.attendees ?? []).map((attendee) => ({
        email: attendee.email ?? null,
        name: attendee.name ?? null,
        status: attendee.status ?? "needs_action",
      })),
      createdBy: principal.member_id,
      createdAt: new Date(),
    }),
  );
}

/** Spec 4.2: a calendar_id filter only narrows what the key may see, so an unknown one lists nothing. */
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

import { t, type Static, type TSchema } from "elysia";
import { STORABLE_TEXT_PATTERN } from "../text/storable-text";
import { ListEnvelope, PagingQuery } from "./list";
import { PAGE_TITLE_PATTERN } from "./pages";

/**
 * Elysia's t.Integer also accepts numeric strings ("5"), which a JSON body must
 * not; its plain TypeBox integer is the second member of the union it wraps.
 */
function JsonInteger(options: { minimum: number; maximum: number; description: string; examples: number[] }) {
  const plain = (t.Integer(options) as unknown as { anyOf?: TSchema[] }).anyOf?.[1];
  if (!plain || plain.type !== "integer") throw new Error("Elysia's t.Integer changed shape: revisit JsonInteger.");
  return plain as ReturnType<typeof t.Integer>;
}

/**
 * Canonical UUID text only: the `uuid` format alone also lets `urn:uuid:…`
 * through, which Postgres would refuse.
 */
const UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

/**
 * RFC 3339 date-time with a mandatory offset. Elysia's `date-time` format on its
 * own also accepts a bare date and JavaScript's Date strings.
 */
export const DATE_TIME_PATTERN = "^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})$";

/** A link people open to join: http or https with a host, never `javascript:`, `data:` or `file:`. */
const WEB_LINK_PATTERN = "^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]";

const Uuid = (description: string) => t.String({ format: "uuid", pattern: UUID_PATTERN, description, examples: ["01936f3e-8a4b-7c2d-9e1f-0a1b2c3d4e5f"] });
const DateTimeIn = (description: string, example: string) =>
  t.String({ format: "date-time", pattern: DATE_TIME_PATTERN, description, examples: [example] });
const DateTimeOut = (description: string, example: string) => t.String({ format: "date-time", description, examples: [example] });
const FreeText = (description: string, example: string) => t.String({ pattern: STORABLE_TEXT_PATTERN, description, examples: [example] });

export const ATTENDEE_STATUSES = ["needs_action", "accepted", "declined", "tentative"] as const;
export type AttendeeStatus = (typeof ATTENDEE_STATUSES)[number];
export const MAX_ATTENDEES = 500;
export const MAX_REMINDER_MINUTES = 10_080;

/** An attendee as a request: no field is required. */
export const AttendeeInput = t.Object(
  {
    email: t.Optional(t.String({ format: "email", description: "The attendee's email address.", examples: ["ada@example.com"] })),
    name: t.Optional(FreeText("The attendee's display name.", "Ada Lovelace")),
    status: t.Optional(
      t.UnionEnum([...ATTENDEE_STATUSES], { description: "The attendee's response; needs_action when not given.", default: "needs_action" }),
    ),
  },
  { title: "EventAttendeeInput", description: "An attendee as sent on create; every field is optional." },
);
export type AttendeeInput = Static<typeof AttendeeInput>;

/** An attendee as answered: status is always present; email and name only when they were given. */
export const Attendee = t.Object(
  {
    email: t.Optional(t.String({ format: "email", examples: ["ada@example.com"] })),
    name: t.Optional(t.String({ examples: ["Ada Lovelace"] })),
    status: t.UnionEnum([...ATTENDEE_STATUSES], { description: "The attendee's response." }),
  },
  { title: "EventAttendee", description: "An event attendee." },
);
export type Attendee = Static<typeof Attendee>;

/** The create-calendar-event request object, with every bound. */
export const CreateEventBody = t.Object(
  {
    calendar_id: Uuid("The calendar that receives the event."),
    title: t.Optional(FreeText("Free text; empty titles are allowed.", "Design review")),
    starts_at: DateTimeIn("Start, RFC 3339 date-time with Z or an offset.", "2026-03-02T10:00:00+01:00"),
    ends_at: DateTimeIn("End, not before starts_at (equal is allowed).", "2026-03-02T11:00:00+01:00"),
    is_all_day: t.Optional(t.Boolean({ description: "Whether the event lasts all day; false when not given." })),
    location: t.Optional(FreeText("Where the event takes place.", "Room 4.01")),
    conference_url: t.Optional(
      t.String({ format: "uri", pattern: WEB_LINK_PATTERN, description: "Link to join online: an http or https URL.", examples: ["https://meet.example.com/abc-defg"] }),
    ),
    notes: t.Optional(FreeText("Internal notes.", "Bring the Q1 numbers.")),
    reminder_minutes_before_start: t.Optional(
      JsonInteger({ minimum: 0, maximum: MAX_REMINDER_MINUTES, description: "Minutes before the start to remind attendees (0 to 10080).", examples: [15] }),
    ),
    attendees: t.Optional(t.Array(AttendeeInput, { maxItems: MAX_ATTENDEES, description: "At most 500 attendees; their order is kept." })),
  },
  { title: "CreateCalendarEventRequest", description: "The create-calendar-event request. Unknown fields are ignored." },
);
export type CreateEventBody = Static<typeof CreateEventBody>;

const UpdatedAt = t.String({
  format: "date-time",
  description: "Extension: when it last changed, UTC with microseconds; strictly increases on every update. The `ETag` derives from it.",
  examples: ["2026-03-01T08:00:00.000123Z"],
});

const NullableString = (description: string, options: { format?: string } = {}) =>
  t.Union([t.String(options), t.Null()], { description });

/**
 * Every field of the event response plus notes and reminder_minutes_before_start. Every response
 * field is always present (null when not given); notes and the reminder appear
 * only on events that were created with them.
 */
export const CalendarEvent = t.Object(
  {
    id: t.String({ format: "uuid", description: "Assigned by the service (UUID v7)." }),
    calendar_id: t.String({ format: "uuid" }),
    title: NullableString("The title as given (possibly empty); null when not given."),
    starts_at: DateTimeOut("Start in UTC, millisecond precision.", "2026-03-02T09:00:00.000Z"),
    ends_at: DateTimeOut("End in UTC, millisecond precision.", "2026-03-02T10:00:00.000Z"),
    is_all_day: t.Boolean(),
    location: NullableString("Null when not given."),
    conference_url: NullableString("Null when not given.", { format: "uri" }),
    attendees: t.Array(Attendee, { description: "In the order given; empty when none." }),
    notes: t.Optional(t.String({ description: "Present only when given." })),
    reminder_minutes_before_start: t.Optional(t.Integer({ minimum: 0, maximum: MAX_REMINDER_MINUTES, description: "Present only when given." })),
    updated_at: UpdatedAt,
  },
  { title: "CalendarEvent", description: "A calendar event; list items have exactly this shape." },
);
export type CalendarEvent = Static<typeof CalendarEvent>;

/** Query of GET /api/calendar/events/. */
export const EventListQuery = t.Object(
  {
    ...PagingQuery,
    calendar_id: t.Optional(Uuid("Only events of this calendar.")),
    starts_after: t.Optional(DateTimeIn("Only events starting at or after this instant (inclusive).", "2026-03-01T00:00:00Z")),
    starts_before: t.Optional(DateTimeIn("Only events starting strictly before this instant (exclusive).", "2026-04-01T00:00:00Z")),
  },
  { title: "ListCalendarEventsQuery" },
);
export type EventListQuery = Static<typeof EventListQuery>;

export const CalendarEventList = ListEnvelope(CalendarEvent, "CalendarEventList");
export type CalendarEventList = Static<typeof CalendarEventList>;

/** Extension: a calendar, at workspace level or in a team. */
export const Calendar = t.Object(
  {
    id: t.String({ format: "uuid" }),
    name: t.String({ examples: ["Engineering on-call"] }),
    team_id: t.Union([t.String({ format: "uuid" }), t.Null()], { description: "The team of the calendar; null at workspace level." }),
    created_at: DateTimeOut("Creation time in UTC.", "2026-03-01T08:00:00.000Z"),
    updated_at: UpdatedAt,
  },
  { title: "Calendar", description: "A calendar that holds events (an extension)." },
);
export type Calendar = Static<typeof Calendar>;

/** The page title's rule: 1 to 255 code points, not only whitespace, no NUL or lone surrogate. */
export const CalendarName = t.String({
  minLength: 1,
  pattern: PAGE_TITLE_PATTERN,
  description: "1 to 255 characters (code points), not only whitespace; no NUL or lone surrogate.",
  examples: ["Engineering on-call"],
});

export const CreateCalendarBody = t.Object(
  {
    name: CalendarName,
    team_id: t.Optional(
      t.Union([Uuid("The team; defaults to the key's team when it targets exactly one, else workspace level."), t.Null()]),
    ),
  },
  { title: "CreateCalendarRequest", examples: [{ name: "Engineering on-call" }] },
);
export type CreateCalendarBody = Static<typeof CreateCalendarBody>;

export const CalendarListQuery = t.Object(
  {
    ...PagingQuery,
  },
  { title: "ListCalendarsQuery" },
);
export type CalendarListQuery = Static<typeof CalendarListQuery>;

export const CalendarList = ListEnvelope(Calendar, "CalendarList");
export type CalendarList = Static<typeof CalendarList>;

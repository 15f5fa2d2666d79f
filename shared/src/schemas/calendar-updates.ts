import { t, type Static, type TSchema } from "elysia";
import { CalendarName, CreateEventBody } from "./calendar";

/**
 * The bodies of the calendar's updates. They take their fields' rules from the
 * create bodies, so a rule written once holds for both.
 */

/** A calendar's name is all that changes: its team is fixed at creation (a `team_id` sent is ignored like any unknown field). */
export const UpdateCalendarBody = t.Object(
  { name: CalendarName },
  { title: "UpdateCalendarRequest", description: "Renames the calendar. Unknown fields, `team_id` among them, are ignored." },
);
export type UpdateCalendarBody = Static<typeof UpdateCalendarBody>;

const fields = t.Required(CreateEventBody).properties;
const clearable = <T extends TSchema>(schema: T, description: string) => t.Optional(t.Union([schema, t.Null()], { description }));

export const UPDATABLE_EVENT_FIELDS = [
  "calendar_id", "title", "starts_at", "ends_at", "is_all_day", "location", "conference_url", "notes", "reminder_minutes_before_start", "attendees",
] as const;

/**
 * An event update, with the page update's rules: the fields given replace
 * their values, omitted fields keep theirs, at least one field is needed.
 * `null` clears an optional field; `attendees` replaces the whole list.
 */
export const UpdateEventBody = t.Object(
  {
    calendar_id: t.Optional(fields.calendar_id),
    title: clearable(fields.title, "The new title; null clears it."),
    starts_at: t.Optional(fields.starts_at),
    ends_at: t.Optional(fields.ends_at),
    is_all_day: t.Optional(fields.is_all_day),
    location: clearable(fields.location, "The new location; null clears it."),
    conference_url: clearable(fields.conference_url, "The new link; null clears it."),
    notes: clearable(fields.notes, "The new notes; null removes them."),
    reminder_minutes_before_start: clearable(fields.reminder_minutes_before_start, "The new reminder (0 to 10080); null removes it."),
    attendees: t.Optional(fields.attendees),
  },
  {
    title: "UpdateCalendarEventRequest",
    description:
      "Fields given replace their values; omitted fields keep theirs; at least one field is needed. `calendar_id` moves the event to another calendar the key can write. Unknown fields are ignored.",
    examples: [{ title: "Design review (moved)", starts_at: "2026-03-03T10:00:00+01:00", ends_at: "2026-03-03T11:00:00+01:00", location: null }],
    // For the document: the service makes this check itself, to name every field.
    anyOf: UPDATABLE_EVENT_FIELDS.map((name) => ({ required: [name] })),
  },
);
export type UpdateEventBody = Static<typeof UpdateEventBody>;

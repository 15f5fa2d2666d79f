import type { Deadline } from "../http/deadline";
import type { AnswerHold } from "../http/answer-holds";
import type { Principal } from "../principal/principal";
import { CalendarEvent, CalendarListQuery, CalendarEventList, CalendarList, Calendar, CreateCalendarBody, CreateEventBody, EventListQuery } from "../schemas/calendar";
import { UpdateCalendarBody, UpdateEventBody } from "../schemas/calendar-updates";
import { CreatePageBody, Page, PageList, PageListQuery, UpdatePageBody } from "../schemas/pages";
import type { OperationHandlers } from "./operation";
import { serviceOperations, type PublicOperation, type ServiceName } from "./public-operation";

const PAGE_OPERATIONS = serviceOperations("pages", {
  listPages: {
    method: "GET", path: "/v1/new-page", scope: "docs:read",
    summary: "List pages",
    description:
      "The pages the key can see, most recently updated first by default, in the list envelope. A page number past the end answers 200 with empty `data`. A result page whose contents take more than 16 MiB is streamed, page by page: a page changed while it goes out appears as it is when its turn comes, one deleted meanwhile is left out of `data`.",
    query: PageListQuery,
    success: { status: 200, description: "One result page of pages.", schema: PageList },
    rules: [
      { code: "rate_limit_exceeded", when: "The workspace's answers already carry half of the service's room for large contents (32 MiB) at once; `Retry-After` says when to retry." },
      { code: "service_unavailable", when: "The service's answers already carry all of its room for large contents at once; `Retry-After` says when to retry." },
    ],
  },
  createPage: {
    method: "POST", path: "/v1/new-page", scope: "docs:create",
    summary: "Create a page",
    description: "Creates a page; `updated_at` equals `created_at` in the answer.",
    body: CreatePageBody,
    success: { status: 201, description: "The created page.", schema: Page },
    rules: [
      { code: "validation_error", when: "`title` or `content` holds a lone surrogate." },
      { code: "validation_error", when: "`team_id` is absent while the key targets several teams." },
      { code: "not_found", when: "`team_id` names a team the key's creator cannot see (or of another workspace)." },
    ],
  },
  getPage: {
    method: "GET", path: "/v1/new-page/:id", scope: "docs:read",
    summary: "Get a page",
    description: "One page by its id.",
    success: { status: 200, description: "The page.", schema: Page },
    rules: [
      { code: "rate_limit_exceeded", when: "The page's content is over 64 KiB and the workspace's answers already carry half of the service's room for large contents (32 MiB) at once; `Retry-After` says when to retry." },
      { code: "service_unavailable", when: "The page's content is over 64 KiB and the service's answers already carry all of its room for large contents at once; `Retry-After` says when to retry." },
    ],
  },
  updatePage: {
    method: "PUT", path: "/v1/new-page/:id", scope: "docs:update",
    summary: "Update a page",
    description: "Replaces the fields that are given; omitted fields keep their values. `updated_at` strictly increases.",
    body: UpdatePageBody,
    success: { status: 200, description: "The updated page.", schema: Page },
    rules: [
      { code: "validation_error", when: "The body has neither `title` nor `content` (`details.fields` lists both)." },
      { code: "validation_error", when: "`title` or `content` holds a lone surrogate." },
    ],
  },
  deletePage: {
    method: "DELETE", path: "/v1/new-page/:id", scope: "docs:delete",
    summary: "Delete a page",
    description: "Deletes the page permanently and at once; there is no undo.",
    success: { status: 204, description: "The page was deleted; the body is empty." },
  },
});

const CALENDAR_OPERATIONS = serviceOperations("calendar", {
  createCalendarEvent: {
    method: "POST", path: "/api/calendar/events", scope: "calendar:create",
    summary: "Create a calendar event",
    description: "Creates an event in a calendar the key can reach.",
    body: CreateEventBody,
    success: { status: 201, description: "The created event.", schema: CalendarEvent },
    rules: [
      { code: "not_found", when: "`calendar_id` names a calendar that does not exist or is not visible to the key's creator." },
      { code: "validation_error", when: "`ends_at` is before `starts_at`." },
    ],
  },
  listCalendarEvents: {
    method: "GET", path: "/api/calendar/events", scope: "calendar:read",
    summary: "List calendar events",
    description: "The events the key can see, ordered by `starts_at` then `id`, in the list envelope.",
    query: EventListQuery,
    success: { status: 200, description: "One result page of events.", schema: CalendarEventList },
  },
  getCalendarEvent: {
    method: "GET", path: "/api/calendar/events/:id", scope: "calendar:read",
    summary: "Get a calendar event",
    description: "Extension: one event by its id, in the shape of a list item.",
    success: { status: 200, description: "The event.", schema: CalendarEvent },
  },
  updateCalendarEvent: {
    method: "PUT", path: "/api/calendar/events/:id", scope: "calendar:update",
    summary: "Update a calendar event",
    description:
      "Extension: changes the fields that are given, as an update of a page does; omitted fields keep their values, `null` clears an optional field, `attendees` replaces the list, `calendar_id` moves the event. `updated_at` strictly increases.",
    body: UpdateEventBody,
    success: { status: 200, description: "The updated event.", schema: CalendarEvent },
    rules: [
      { code: "bad_request", when: "The body has none of the event's fields (`details.fields` lists them all)." },
      { code: "not_found", when: "`calendar_id` names a calendar that does not exist or is not visible to the key's creator." },
      { code: "validation_error", when: "`ends_at` would be before `starts_at` once the update is applied." },
    ],
  },
  deleteCalendarEvent: {
    method: "DELETE", path: "/api/calendar/events/:id", scope: "calendar:delete",
    summary: "Delete a calendar event",
    description: "Extension: deletes the event and its attendees permanently and at once.",
    success: { status: 204, description: "The event was deleted; the body is empty." },
  },
  createCalendar: {
    method: "POST", path: "/api/calendar/calendars", scope: "calendar:create",
    summary: "Create a calendar",
    description: "Extension: creates a calendar at workspace level or in a team.",
    body: CreateCalendarBody,
    success: { status: 201, description: "The created calendar.", schema: Calendar },
    rules: [
      { code: "bad_request", when: "`team_id` is absent while the key targets several teams." },
      { code: "not_found", when: "`team_id` names a team the key's creator cannot see (or of another workspace)." },
    ],
  },
  listCalendars: {
    method: "GET", path: "/api/calendar/calendars", scope: "calendar:read",
    summary: "List calendars",
    description: "Extension: the calendars the key can see, in the list envelope.",
    query: CalendarListQuery,
    success: { status: 200, description: "One result page of calendars.", schema: CalendarList },
  },
  getCalendar: {
    method: "GET", path: "/api/calendar/calendars/:id", scope: "calendar:read",
    summary: "Get a calendar",
    description: "Extension: one calendar by its id.",
    success: { status: 200, description: "The calendar.", schema: Calendar },
  },
  updateCalendar: {
    method: "PUT", path: "/api/calendar/calendars/:id", scope: "calendar:update",
    summary: "Rename a calendar",
    description: "Extension: sets the calendar's name; its team is fixed at creation. `updated_at` strictly increases.",
    body: UpdateCalendarBody,
    success: { status: 200, description: "The updated calendar.", schema: Calendar },
  },
  deleteCalendar: {
    method: "DELETE", path: "/api/calendar/calendars/:id", scope: "calendar:delete",
    summary: "Delete a calendar and its events",
    description: "Extension: deletes the calendar together with every event in it (and their attendees), permanently and in one transaction.",
    success: { status: 204, description: "The calendar and its events were deleted; the body is empty." },
  },
});

/**
 * The one table of public operations. The gateway routes, checks scopes and
 * limits bodies from it, the OpenAPI document is generated from it, and each
 * service serves exactly its operations from it (serveOperations).
 */
export const PUBLIC_OPERATIONS = { ...PAGE_OPERATIONS, ...CALENDAR_OPERATIONS };
export type PublicOperations = typeof PUBLIC_OPERATIONS;
export type PublicOperationId = keyof PublicOperations;

export const PUBLIC_OPERATION_LIST: readonly PublicOperation[] = Object.values(PUBLIC_OPERATIONS);

export type ServiceOperationId<Service extends ServiceName> = {
  [Id in PublicOperationId]: PublicOperations[Id]["service"] extends Service ? Id : never;
}[PublicOperationId];

/** What a service's handlers are given besides the request's parameters, query and body. */
export interface ServiceContext {
  principal: Principal;
  /** When the gateway stops waiting: work started for the request commits only before it. */
  deadline: Deadline;
  /** The request's `If-Match`, for an update or delete to check in its own statement. */
  ifMatch?: string;
  /** Keeps `hold` (room taken in a memory budget for the answer) until the answer has been sent. */
  holdUntilAnswered(hold: AnswerHold): void;
}

/** Where a resource created at this collection path can be read: the table's GET by id beneath it, if there is one. */
export function resourcePathOf(collectionPath: string): string | undefined {
  const candidate = `${collectionPath.replace(/\/$/, "")}/:id`;
  return PUBLIC_OPERATION_LIST.some((operation) => operation.method === "GET" && operation.path === candidate) ? candidate : undefined;
}

/** A handler for each of the named operations. */
export type PublicHandlers<Ids extends PublicOperationId> = OperationHandlers<Pick<PublicOperations, Ids>, ServiceContext>;

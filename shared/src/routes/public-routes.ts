import type { TSchema } from "elysia";
import type { Scope } from "../access/scopes";
import { CalendarEvent, CalendarListQuery, CalendarEventList, CalendarList, Calendar, CreateCalendarBody, CreateEventBody, EventListQuery } from "../schemas/calendar";
import { CreatePageBody, Page, PageList, PageListQuery, UpdatePageBody } from "../schemas/pages";

export type ServiceName = "pages" | "calendar";
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Error statuses an operation answers beyond those every authenticated operation
 * can (401, 403, 429, 500, 502, 503, 504), each with when it happens.
 */
export type OperationErrors = Partial<Record<400 | 404 | 413 | 422, string>>;

export interface PublicRoute {
  operationId: string;
  method: HttpMethod;
  /** Elysia-style path; a trailing slash is always optional (contract 1). */
  path: string;
  scope: Scope;
  service: ServiceName;
  summary: string;
  description: string;
  /** Largest accepted request body (contract 3: 1 MiB by default, pages 10 MiB). */
  maxBodyBytes: number;
  query?: TSchema;
  body?: TSchema;
  success: { status: 200 | 201 | 204; description: string; schema?: TSchema };
  errors: OperationErrors;
}

const MiB = 1024 * 1024;
export const DEFAULT_MAX_BODY_BYTES = 1 * MiB;
export const PAGES_MAX_BODY_BYTES = 10 * MiB;

const NOT_JSON = "The body is not valid JSON, not a JSON object, or sent without `Content-Type: application/json`";
const tooLarge = (bytes: number) => `The body is larger than ${bytes / MiB} MiB.`;
const PAGES_BODY_ERRORS = { 400: `${NOT_JSON}.`, 413: tooLarge(PAGES_MAX_BODY_BYTES) };
const CALENDAR_BODY_ERRORS = {
  400: `${NOT_JSON}; or a required field is missing or a field has the wrong type or format (\`details.fields\` names them).`,
  413: tooLarge(DEFAULT_MAX_BODY_BYTES),
};
const PAGE_NOT_FOUND = "No page with that id is visible to the key: it never existed, was deleted, belongs to another workspace, or the id is malformed.";

/**
 * The one table of public operations: the gateway routes, checks scopes and
 * limits bodies from it, and the OpenAPI document is generated from it.
 */
export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  {
    operationId: "listPages", method: "GET", path: "/v1/new-page", scope: "docs:read", service: "pages",
    summary: "List pages",
    description: "The pages the key can see, most recently updated first by default, in the list envelope. A page number past the end answers 200 with empty `data`.",
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    query: PageListQuery,
    success: { status: 200, description: "One result page of pages.", schema: PageList },
    errors: { 422: "A query parameter is out of its bounds (`page` or `per_page` not an integer of at least 1, `sort` or `order` not an allowed value); `details.fields` names it." },
  },
  {
    operationId: "createPage", method: "POST", path: "/v1/new-page", scope: "docs:create", service: "pages",
    summary: "Create a page",
    description: "Creates a page; `updated_at` equals `created_at` in the answer.",
    maxBodyBytes: PAGES_MAX_BODY_BYTES,
    body: CreatePageBody,
    success: { status: 201, description: "The created page.", schema: Page },
    errors: {
      ...PAGES_BODY_ERRORS,
      404: "`team_id` names a team that does not exist or is not visible to the key's creator.",
      422: "`title` is missing, blank, longer than 255 code points or not a string, or `content` or `team_id` has the wrong type; `details.fields` names them.",
    },
  },
  {
    operationId: "getPage", method: "GET", path: "/v1/new-page/:id", scope: "docs:read", service: "pages",
    summary: "Get a page",
    description: "One page by its id.",
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    success: { status: 200, description: "The page.", schema: Page },
    errors: { 404: PAGE_NOT_FOUND },
  },
  {
    operationId: "updatePage", method: "PUT", path: "/v1/new-page/:id", scope: "docs:update", service: "pages",
    summary: "Update a page",
    description: "Replaces the fields that are given; omitted fields keep their values. `updated_at` strictly increases.",
    maxBodyBytes: PAGES_MAX_BODY_BYTES,
    body: UpdatePageBody,
    success: { status: 200, description: "The updated page.", schema: Page },
    errors: {
      ...PAGES_BODY_ERRORS,
      404: PAGE_NOT_FOUND,
      422: "The body has neither `title` nor `content` (`details.fields` lists both), or a field breaks its rule.",
    },
  },
  {
    operationId: "deletePage", method: "DELETE", path: "/v1/new-page/:id", scope: "docs:delete", service: "pages",
    summary: "Delete a page",
    description: "Deletes the page permanently and at once; there is no undo.",
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    success: { status: 204, description: "The page was deleted; the body is empty." },
    errors: { 404: PAGE_NOT_FOUND },
  },
  {
    operationId: "createCalendarEvent", method: "POST", path: "/api/calendar/events", scope: "calendar:create", service: "calendar",
    summary: "Create a calendar event",
    description: "Creates an event in a calendar the key can reach.",
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    body: CreateEventBody,
    success: { status: 201, description: "The created event.", schema: CalendarEvent },
    errors: {
      ...CALENDAR_BODY_ERRORS,
      404: "`calendar_id` names a calendar that does not exist or is not visible to the key's creator.",
      422: "`ends_at` is before `starts_at`.",
    },
  },
  {
    operationId: "listCalendarEvents", method: "GET", path: "/api/calendar/events", scope: "calendar:read", service: "calendar",
    summary: "List calendar events",
    description: "The events the key can see, ordered by `starts_at` then `id`, in the list envelope.",
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    query: EventListQuery,
    success: { status: 200, description: "One result page of events.", schema: CalendarEventList },
    errors: { 400: "A query parameter is invalid (`page`/`per_page` not an integer of at least 1, `calendar_id` not a UUID, `starts_after`/`starts_before` not a date-time); `details.fields` names it." },
  },
  {
    operationId: "createCalendar", method: "POST", path: "/api/calendar/calendars", scope: "calendar:create", service: "calendar",
    summary: "Create a calendar",
    description: "Extension (contract 5): creates a calendar at workspace level or in a team.",
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    body: CreateCalendarBody,
    success: { status: 201, description: "The created calendar.", schema: Calendar },
    errors: {
      ...CALENDAR_BODY_ERRORS,
      404: "`team_id` names a team that does not exist or is not visible to the key's creator.",
    },
  },
  {
    operationId: "listCalendars", method: "GET", path: "/api/calendar/calendars", scope: "calendar:read", service: "calendar",
    summary: "List calendars",
    description: "Extension (contract 5): the calendars the key can see, in the list envelope.",
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    query: CalendarListQuery,
    success: { status: 200, description: "One result page of calendars.", schema: CalendarList },
    errors: { 400: "`page` or `per_page` is not an integer of at least 1; `details.fields` names it." },
  },
];

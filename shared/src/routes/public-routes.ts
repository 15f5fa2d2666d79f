import type { Scope } from "../access/scopes";

export type ServiceName = "pages" | "calendar";
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface PublicRoute {
  operationId: string;
  method: HttpMethod;
  /** Elysia-style path; a trailing slash is always optional (contract 1). */
  path: string;
  scope: Scope;
  service: ServiceName;
  summary: string;
  /** Largest accepted request body (contract 3: 1 MiB by default, pages 10 MiB). */
  maxBodyBytes: number;
}

const MiB = 1024 * 1024;
export const DEFAULT_MAX_BODY_BYTES = 1 * MiB;
export const PAGES_MAX_BODY_BYTES = 10 * MiB;

/**
 * The one table of public operations: the gateway routes, checks scopes and
 * limits bodies from it, and the OpenAPI document is generated from it.
 */
export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  { operationId: "listPages", method: "GET", path: "/v1/new-page", scope: "docs:read", service: "pages", summary: "List pages", maxBodyBytes: DEFAULT_MAX_BODY_BYTES },
  { operationId: "createPage", method: "POST", path: "/v1/new-page", scope: "docs:create", service: "pages", summary: "Create a page", maxBodyBytes: PAGES_MAX_BODY_BYTES },
  { operationId: "getPage", method: "GET", path: "/v1/new-page/:id", scope: "docs:read", service: "pages", summary: "Get a page", maxBodyBytes: DEFAULT_MAX_BODY_BYTES },
  { operationId: "updatePage", method: "PUT", path: "/v1/new-page/:id", scope: "docs:update", service: "pages", summary: "Update a page", maxBodyBytes: PAGES_MAX_BODY_BYTES },
  { operationId: "deletePage", method: "DELETE", path: "/v1/new-page/:id", scope: "docs:delete", service: "pages", summary: "Delete a page", maxBodyBytes: DEFAULT_MAX_BODY_BYTES },
  { operationId: "createCalendarEvent", method: "POST", path: "/api/calendar/events", scope: "calendar:create", service: "calendar", summary: "Create a calendar event", maxBodyBytes: DEFAULT_MAX_BODY_BYTES },
  { operationId: "listCalendarEvents", method: "GET", path: "/api/calendar/events", scope: "calendar:read", service: "calendar", summary: "List calendar events", maxBodyBytes: DEFAULT_MAX_BODY_BYTES },
  { operationId: "createCalendar", method: "POST", path: "/api/calendar/calendars", scope: "calendar:create", service: "calendar", summary: "Create a calendar", maxBodyBytes: DEFAULT_MAX_BODY_BYTES },
  { operationId: "listCalendars", method: "GET", path: "/api/calendar/calendars", scope: "calendar:read", service: "calendar", summary: "List calendars", maxBodyBytes: DEFAULT_MAX_BODY_BYTES },
];

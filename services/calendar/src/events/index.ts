import type { PublicHandlers, ServiceDeps } from "@ws/shared";
import * as events from "./service";

/** The event operations of the public table, each answered by its use case. */
export function eventOperations(
  deps: ServiceDeps,
): PublicHandlers<"createCalendarEvent" | "listCalendarEvents" | "getCalendarEvent" | "updateCalendarEvent" | "deleteCalendarEvent"> {
  return {
    createCalendarEvent: ({ principal, body }) => events.createEvent(deps.sql, principal, body),
    listCalendarEvents: ({ principal, query }) => events.listEvents(deps.sql, principal, query),
    getCalendarEvent: ({ principal, params }) => events.getEvent(deps.sql, principal, params.id),
    updateCalendarEvent: ({ principal, params, body, ifMatch }) => events.updateEvent(deps.sql, principal, params.id, body, ifMatch),
    deleteCalendarEvent: ({ principal, params, ifMatch }) => events.deleteEvent(deps.sql, principal, params.id, ifMatch),
  };
}

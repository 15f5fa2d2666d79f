import type { PublicHandlers, ServiceDeps } from "@ws/shared";
import * as events from "./service";

/** The event operations of the public table, each answered by its use case. */
export function eventOperations(
  deps: ServiceDeps,
): PublicHandlers<"createCalendarEvent" | "listCalendarEvents" | "getCalendarEvent" | "updateCalendarEvent" | "deleteCalendarEvent"> {
  return {
    createCalendarEvent: ({ principal, body, deadline }) => events.createEvent(deps.sql, principal, body, deadline),
    listCalendarEvents: ({ principal, query }) => events.listEvents(deps.sql, principal, query),
    getCalendarEvent: ({ principal, params }) => events.getEvent(deps.sql, principal, params.id),
    updateCalendarEvent: ({ principal, params, body, deadline, ifMatch }) => events.updateEvent(deps.sql, principal, params.id, body, deadline, ifMatch),
    deleteCalendarEvent: ({ principal, params, deadline, ifMatch }) => events.deleteEvent(deps.sql, principal, params.id, deadline, ifMatch),
  };
}

import type { PublicHandlers, ServiceDeps } from "@ws/shared";
import * as events from "./service";

/** The event operations of the public table, each answered by its use case. */
export function eventOperations(deps: ServiceDeps): PublicHandlers<"createCalendarEvent" | "listCalendarEvents"> {
  return {
    createCalendarEvent: ({ principal, body, deadline }) => events.createEvent(deps.sql, principal, body, deadline),
    listCalendarEvents: ({ principal, query }) => events.listEvents(deps.sql, principal, query),
  };
}

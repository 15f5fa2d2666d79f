import type { PublicHandlers, ServiceDeps } from "@ws/shared";
import * as calendars from "./service";

/** The calendar operations of the public table, each answered by its use case. */
export function calendarOperations(deps: ServiceDeps): PublicHandlers<"createCalendar" | "listCalendars"> {
  return {
    createCalendar: ({ principal, body, deadline }) => calendars.createCalendar(deps.sql, principal, body, deadline),
    listCalendars: ({ principal, query }) => calendars.listCalendars(deps.sql, principal, query),
  };
}

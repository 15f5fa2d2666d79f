import type { PublicHandlers, ServiceDeps } from "@ws/shared";
import * as calendars from "./service";

/** The calendar operations of the public table, each answered by its use case. */
export function calendarOperations(deps: ServiceDeps): PublicHandlers<"createCalendar" | "listCalendars" | "getCalendar" | "updateCalendar" | "deleteCalendar"> {
  return {
    createCalendar: ({ principal, body, deadline }) => calendars.createCalendar(deps.sql, principal, body, deadline),
    listCalendars: ({ principal, query }) => calendars.listCalendars(deps.sql, principal, query),
    getCalendar: ({ principal, params }) => calendars.getCalendar(deps.sql, principal, params.id),
    updateCalendar: ({ principal, params, body, deadline, ifMatch }) => calendars.renameCalendar(deps.sql, principal, params.id, body, deadline, ifMatch),
    deleteCalendar: ({ principal, params, deadline, ifMatch }) => calendars.deleteCalendar(deps.sql, principal, params.id, deadline, ifMatch),
  };
}

import { Elysia } from "elysia";
import { Calendar, CalendarList, CalendarListQuery, CreateCalendarBody, ErrorObject, requestDeadline, requirePrincipal, type ServiceDeps } from "@ws/shared";
import * as service from "./service";

const errors = { 400: ErrorObject, 401: ErrorObject, 403: ErrorObject, 404: ErrorObject, 422: ErrorObject };

/** Contract 5 extension: calendars, the containers events go into. */
export function calendarRoutes(deps: ServiceDeps) {
  return new Elysia({ prefix: "/api/calendar/calendars" })
    .use(requirePrincipal(deps.signingKey))
    .use(requestDeadline())
    .post(
      "/",
      async ({ principal, body, deadline, set }) => {
        set.status = 201;
        return service.createCalendar(deps.sql, principal, body, deadline);
      },
      {
        body: CreateCalendarBody,
        response: { 201: Calendar, ...errors },
      },
    )
    .get("/", ({ principal, query }) => service.listCalendars(deps.sql, principal, query), {
      query: CalendarListQuery,
      response: { 200: CalendarList, ...errors },
    });
}

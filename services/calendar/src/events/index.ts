import { Elysia } from "elysia";
import { CalendarEvent, CalendarEventList, CreateEventBody, ErrorObject, EventListQuery, requestDeadline, requirePrincipal, type ServiceDeps } from "@ws/shared";
import * as service from "./service";

const errors = { 400: ErrorObject, 401: ErrorObject, 403: ErrorObject, 404: ErrorObject, 422: ErrorObject };

/** Spec 4.1 and 4.2: create and list calendar events. */
export function eventRoutes(deps: ServiceDeps) {
  return new Elysia({ prefix: "/api/calendar/events" })
    .use(requirePrincipal(deps.signingKey))
    .use(requestDeadline())
    .post(
      "/",
      async ({ principal, body, deadline, set }) => {
        set.status = 201;
        return service.createEvent(deps.sql, principal, body, deadline);
      },
      {
        body: CreateEventBody,
        response: { 201: CalendarEvent, ...errors },
      },
    )
    .get("/", ({ principal, query }) => service.listEvents(deps.sql, principal, query), {
      query: EventListQuery,
      response: { 200: CalendarEventList, ...errors },
    });
}

import { Elysia } from "elysia";
import { serviceApp, type ServiceDeps } from "@ws/shared";
import { calendarRoutes } from "./calendars";
import { eventRoutes } from "./events";

/**
 * The calendar service: contract 3 says its schema failures are 400 bad_request.
 * Normalizing with TypeBox rather than Elysia's default exact-mirror: the latter
 * cleans a body before checking it, so `"attendees": "x"` became `[{}]` and passed.
 */
export function createApp(deps: ServiceDeps) {
  return new Elysia({ normalize: "typebox" })
    .use(serviceApp(deps, { validationCode: "bad_request" }))
    .use(calendarRoutes(deps))
    .use(eventRoutes(deps));
}
export type CalendarApp = ReturnType<typeof createApp>;

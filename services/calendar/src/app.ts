import { serviceApp, type ServiceDeps } from "@ws/shared";
import { calendarRoutes } from "./calendars";
import { eventRoutes } from "./events";

/** The calendar service: contract 3 says its schema failures are 400 bad_request. */
export function createApp(deps: ServiceDeps) {
  return serviceApp(deps, { validationCode: "bad_request" }).use(calendarRoutes(deps)).use(eventRoutes(deps));
}
export type CalendarApp = ReturnType<typeof createApp>;

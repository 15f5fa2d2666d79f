import { serviceApp, type ServiceDeps } from "@ws/shared";
import { calendarOperations } from "./calendars";
import { eventOperations } from "./events";

export function createApp(deps: ServiceDeps) {
  return serviceApp(deps, "calendar", { ...calendarOperations(deps), ...eventOperations(deps) });
}
export type CalendarApp = ReturnType<typeof createApp>;

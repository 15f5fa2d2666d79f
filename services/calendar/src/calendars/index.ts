import { Elysia } from "elysia";
import type { ServiceDeps } from "@ws/shared";

// Placeholder until the calendar feature lands.
export function calendarRoutes(_deps: ServiceDeps) {
  return new Elysia().get("/api/calendar/calendars", () => ({ data: [], total: 0, page: 1, per_page: 20 }));
}

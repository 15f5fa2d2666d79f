import { Elysia } from "elysia";
import type { ServiceDeps } from "@ws/shared";

// Placeholder until the calendar feature lands.
export function eventRoutes(_deps: ServiceDeps) {
  return new Elysia();
}

import type { ServiceDefinition } from "@ws/shared";
import { createApp } from "./app";

export const calendarService: ServiceDefinition = {
  name: "calendar",
  defaultPort: 8092,
  migrations: new URL("./migrations/", import.meta.url),
  createApp,
};

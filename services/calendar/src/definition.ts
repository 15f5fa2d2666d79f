import type { ServiceDefinition } from "@ws/shared";
import type { ProcessDefinition } from "@ws/shared";
import { createApp } from "./app";

export const calendarService: ServiceDefinition = {
  name: "calendar",
  defaultPort: 8092,
  migrations: new URL("./migrations/", import.meta.url),
  createApp,
};

/** How the tools start the calendar service (the launcher, `npm run start:calendar`, the image). */
export const calendarProcess: ProcessDefinition = {
  ...calendarService,
  entry: { bun: new URL("./main.bun.ts", import.meta.url), deno: new URL("./main.deno.ts", import.meta.url) },
  runtime: { bun: { flags: [], env: {} }, deno: { flags: [], env: {} } },
};

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
  // Bun's HTTP parser takes what the gateway forwards (it refuses more than 32 KiB itself, with the error object).
  runtime: { bun: { flags: ["--max-http-header-size=1048576"], env: {} }, deno: { flags: [], env: {} } },
};

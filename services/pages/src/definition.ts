import type { ServiceDefinition } from "@ws/shared";
import { createApp } from "./app";

export const pagesService: ServiceDefinition = {
  name: "pages",
  defaultPort: 8091,
  migrations: new URL("./migrations/", import.meta.url),
  createApp,
};

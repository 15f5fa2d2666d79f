import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import type { ServiceDefinition } from "@ws/shared";
import { createApp } from "./app";

export const pagesService: ServiceDefinition = {
  name: "pages",
  defaultPort: 8091,
  migrations: new URL("./migrations/", import.meta.url),
  // The title filter's trigram index; real Postgres ships pg_trgm.
  embeddedExtensions: { pg_trgm },
  createApp,
};

import type { ServiceDefinition } from "@ws/shared";
import { createApp } from "./app";

export const pagesService: ServiceDefinition = {
  name: "pages",
  defaultPort: 8091,
  migrations: new URL("./migrations/", import.meta.url),
  // The title filter's trigram index; real Postgres ships pg_trgm. Loaded only
  // when embedded: PGlite is not in production images.
  embeddedExtensions: async () => ({ pg_trgm: (await import("@electric-sql/pglite/contrib/pg_trgm")).pg_trgm }),
  createApp,
};

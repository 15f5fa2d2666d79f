import type { ServiceDefinition } from "@ws/shared";
import type { ProcessDefinition } from "@ws/shared";
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

/** How the tools start the pages service (the launcher, `npm run start:pages`, the image). */
export const pagesProcess: ProcessDefinition = {
  ...pagesService,
  entry: { bun: new URL("./main.bun.ts", import.meta.url), deno: new URL("./main.deno.ts", import.meta.url) },
  // Bun's HTTP parser takes what the gateway forwards (it refuses more than 32 KiB itself, with the error object).
  // Collecting garbage sooner and giving freed memory back at once: with large answers going out (32 MiB of
  // contents counted) pages peaked at 382 MB without these variables and 238 MB with them, in one run each.
  runtime: {
    bun: { flags: ["--max-http-header-size=1048576"], env: { BUN_JSC_forceRAMSize: "268435456", MIMALLOC_PURGE_DELAY: "0", MIMALLOC_ARENA_EAGER_COMMIT: "0" } },
    deno: { flags: [], env: {} },
  },
};

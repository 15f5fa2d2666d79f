import type { ProcessDefinition } from "@ws/shared";

/**
 * The gateway as the tools see it: where it listens by default, its migrations,
 * and how each runtime starts it. The launcher, `npm run start:gateway` and the
 * migration job read this; the image's CMD is checked against it.
 *
 * Bun's own header parser would answer large headers with a bare 431, so its
 * limit is raised for the gateway to answer with the error object. --smol and a
 * small forceRAMSize make JavaScriptCore collect garbage sooner: the gateway's
 * peak memory under full load drops from about 130 MB to 105 MB at the same
 * throughput. Bun's allocator (mimalloc) set to give freed memory back at once
 * and to commit its arenas as used: 5 MB less at rest and 10 to 20 MB less under
 * floods of large bodies, at the same CPU (bench/README.md, "5. Memory").
 */
export const gatewayProcess = {
  name: "gateway",
  defaultPort: 8080,
  defaultAdminPort: 8081,
  migrations: new URL("./migrations/", import.meta.url),
  entry: { bun: new URL("./main.bun.ts", import.meta.url), deno: new URL("./main.deno.ts", import.meta.url) },
  runtime: {
    bun: { flags: ["--smol", "--max-http-header-size=1048576"], env: { BUN_JSC_forceRAMSize: "268435456", MIMALLOC_PURGE_DELAY: "0", MIMALLOC_ARENA_EAGER_COMMIT: "0" } },
    deno: { flags: [], env: {} },
  },
} as const satisfies ProcessDefinition & { defaultAdminPort: number };

/** The management API's client, for operators' tools and tests. */
export { adminClient, AdminApiError, type AdminClient, type CreatedApiKey, type NewApiKey } from "./cli/admin-client";

/** The public API's OpenAPI document, as `GET /openapi.json` serves it. */
export { buildOpenApiDocument } from "./openapi/document";

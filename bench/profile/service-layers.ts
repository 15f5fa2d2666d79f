/**
 * `bun bench/profile/service-layers.ts`: where the pages service's CPU per
 * `GET /v1/new-page/{id}` goes above the floor's, one layer added at a time, in
 * one process on real PostgreSQL (DATABASE_URL), without sockets in front (the
 * requests go straight to each fetch handler, so only the JavaScript layers
 * differ between the lines). 50 requests in flight, one pool of 20 connections
 * for every line (the PostgreSQL server is shared: keep the footprint small).
 */
import { Elysia, t } from "elysia";
import { randomUUID } from "node:crypto";
import {
  concurrencyGate,
  createLogger,
  errorHandler,
  ErrorObject,
  healthRoutes,
  jsonBodies,
  Page,
  PERMISSION_LEVELS,
  principalOf,
  requirePrincipal,
  signPrincipal,
  signingKeyFrom,
  verifyPrincipal,
  type Principal,
} from "@ws/shared";
import { httpMetrics } from "@ws/shared/src/observability/metrics.ts";
import { countRequests, metricsRoute, routeLabels } from "@ws/shared/src/observability/request-metrics.ts";
import { createApp } from "../../services/pages/src/app";
import { seedPageRow } from "./page-row";
import { getPage } from "../../services/pages/src/pages/service";
import { testStorage } from "../../tests/harness/database";
import postgres from "postgres";

process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/test";
const ITERATIONS = Number(process.env.ITERATIONS ?? 10_000);
/** The machine is shared: every line runs once per round, rounds interleaved, and the median is printed. */
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const IN_FLIGHT = 50;

async function cpuPerRequest(name: string, handle: () => Promise<Response>) {
  const run = async (count: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next++ < count) {
          const response = await handle();
          if (response.status !== 200) throw new Error(`${name}: ${response.status} ${await response.text()}`);
          await response.arrayBuffer();
        }
      }),
    );
  };
  await run(3000);
  const cpu = process.cpuUsage();
  await run(ITERATIONS);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / ITERATIONS;
}

const storage = await testStorage();
const sql = postgres(storage.databaseUrl!, { max: 20, onnotice: () => {} });
try {
  const { workspaceId, pageId } = await seedPageRow(sql);
  const path = `/v1/new-page/${pageId}`;
  const url = `http://127.0.0.1:1${path}`;
  const key = signingKeyFrom("s".repeat(43));
  const principal: Principal = { workspace_id: workspaceId, member_id: randomUUID(), key_id: randomUUID(), scopes: [...PERMISSION_LEVELS.docs.full], target_team_ids: null, visible_team_ids: [], request_id: randomUUID() };
  // A token lives 60 s: one every 20 s keeps the signing out of the figures.
  let token = "";
  let signedAt = 0;
  const signed = () => {
    if (Date.now() - signedAt > 20_000) [token, signedAt] = [signPrincipal(principal, { method: "GET", path }, key), Date.now()];
    return new Request(url, { headers: { "x-workspace-principal": token, "x-request-id": randomUUID() } });
  };
  // The seeded page's content is small: it never takes room that an answer would hold.
  // The bench's pages are small: a large one would be a StreamedJson, which the service's mount writes out.
  const pages = { get: async (p: Principal, id: string) => (await getPage(sql, p, id, () => {})) as typeof Page.static };
  const logger = createLogger("pages", "warn");
  const COMMON = { 401: ErrorObject, 403: ErrorObject, 429: ErrorObject, 500: ErrorObject, 503: ErrorObject } as const;
  const route = { params: t.Object({ id: t.String() }), response: { 200: Page, 404: ErrorObject, ...COMMON } };

  const byId = (id: string) => sql`
    select id, team_id, title, content,
      to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at,
      to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as updated_at
    from pages where id = ${id}`;
  const lines: [string, () => Promise<Response>][] = [];
  lines.push(["no framework: the select and Response.json", async () => Response.json((await byId(pageId))[0])]);
  const floor = new Elysia().get("/v1/new-page/:id", async ({ params }) => (await byId(params.id))[0]);
  lines.push(["floor: Elysia, one route, the select", async () => floor.handle(signed())]);
  const useCase = new Elysia().get("/v1/new-page/:id", ({ params }) => pages.get(principal, params.id));
  lines.push(["+ the service's use case (uuid check, workspace filter, team access)", async () => useCase.handle(signed())]);
  const withJose = new Elysia().get("/v1/new-page/:id", async ({ params, request }) => {
    const verified = await verifyPrincipal(request.headers.get("x-workspace-principal"), { method: "GET", path: new URL(request.url).pathname }, key);
    return pages.get(verified, params.id);
  });
  lines.push(["+ the principal checked in the handler", async () => withJose.handle(signed())]);
  const withPlugin = new Elysia().use(requirePrincipal([key])).get("/v1/new-page/:id", ({ request, params }) => pages.get(principalOf(request), params.id));
  lines.push(["+ as the requirePrincipal plugin instead (onRequest, WeakMap)", async () => withPlugin.handle(signed())]);
  const withSchemas = new Elysia({ normalize: "typebox" }).use(requirePrincipal([key])).get("/v1/new-page/:id", ({ request, params }) => pages.get(principalOf(request), params.id), route);
  lines.push(["+ route schemas (params, responses), normalize: typebox", async () => withSchemas.handle(signed())]);
  // Counted as the service's front counts: around the fetch handler, by the route's template.
  const counted = (app: { handle(request: Request): Promise<Response> }) =>
    countRequests((request) => app.handle(request), httpMetrics(), routeLabels(["/v1/new-page/:id", "/healthz", "/readyz", "/metrics"]));
  const withMetrics = counted(withSchemas);
  lines.push(["+ request metrics (counted around the handler)", async () => withMetrics(signed())]);
  const withAll = counted(
    new Elysia({ normalize: "typebox" })
      .use(metricsRoute(httpMetrics()))
      .use(errorHandler({ validationCode: "validation_error", logger }))
      .use(jsonBodies())
      .use(healthRoutes({ checks: { database: () => sql`select 1` }, isDraining: () => false }))
      .use(requirePrincipal([key]))
      .get("/v1/new-page/:id", ({ request, params }) => pages.get(principalOf(request), params.id), route),
  );
  lines.push(["+ error handler, JSON bodies, health routes", async () => withAll(signed())]);
  const app = counted(createApp({ sql, principalKeys: [key], logger, isDraining: () => false }));
  lines.push(["the pages app itself (createApp: every route of the service)", async () => app(signed())]);
  const gate = concurrencyGate(20);
  lines.push(["+ the concurrency gate (pool size 20): the service as it runs", async () => gate(async () => app(signed()))]);
  const results = lines.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [name, handle]] of lines.entries()) results[i]!.push(await cpuPerRequest(name, handle));
  }
  for (const [i, [name]] of lines.entries()) {
    const sorted = [...results[i]!].sort((a, b) => a - b);
    console.log(`${name.padEnd(86)} ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1).padStart(7)} µs CPU/request (rounds: ${results[i]!.map((v) => v.toFixed(0)).join(", ")})`);
  }
} finally {
  await sql.end();
  await storage.dispose();
}
process.exit(0);

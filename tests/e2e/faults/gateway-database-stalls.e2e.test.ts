import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { expectError } from "../../harness/assertions";
import { apiClient, readResponse, type ApiResponse, type Call } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";
import { canRunThrowawayPostgres, throwawayPostgres, type ThrowawayPostgres } from "../../harness/throwaway-postgres";
import { sleep } from "./helpers";

/**
 * The gateway's own queries (an API key's look-up, Idempotency-Key records)
 * when PostgreSQL stalls or stops: the request is refused 503 ("not executed")
 * within the gateway's database timeout, not held for as long as the stall,
 * and a key whose request was refused is free for the retry the 503 invites.
 */
const DATABASE_TIMEOUT_MS = 800;
const ADMIN_TIMEOUT_MS = 1_500;
const UPSTREAM_TIMEOUT_MS = 3_000;
const PAUSE_MS = 6_000;

let database: ThrowawayPostgres;
let system: TestSystem;
let tenant: Tenant;
let call: Call;

beforeAll(async () => {
  database = await throwawayPostgres();
  system = await startSystem({
    databaseServerUrl: database.url,
    withoutRedis: true,
    gatewayEnv: { DATABASE_TIMEOUT_MS: String(DATABASE_TIMEOUT_MS), UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS), ADMIN_TIMEOUT_MS: String(ADMIN_TIMEOUT_MS) },
  });
  tenant = await seedTenant(system);
  call = apiClient(system.baseUrl, await tenant.key({ rate_limit_per_minute: 1_000_000 }));
}, 120_000);

afterAll(async () => {
  database?.resume();
  await system?.stop();
  await database?.dispose();
});

/** Sends `requests` while PostgreSQL is paused for PAUSE_MS: each is refused 503 with Retry-After within `withinMs`, before it resumes. */
async function refusedDuringStall(requests: (() => Promise<ApiResponse>)[], withinMs: number): Promise<void> {
  database.pause();
  let resumed = false;
  const resume = sleep(PAUSE_MS).then(() => {
    database.resume();
    resumed = true;
  });
  try {
    const answers = await Promise.all(
      requests.map(async (send) => {
        const started = performance.now();
        return { answer: await send(), ms: performance.now() - started };
      }),
    );
    expect(resumed).toBe(false);
    for (const { answer, ms } of answers) {
      expectError(answer, 503, "service_unavailable");
      expect(answer.headers.get("retry-after")).toBe("1");
      expect(ms).toBeLessThan(withinMs);
    }
  } finally {
    await resume;
  }
}

/** Retries a POST with the same Idempotency-Key while it is answered 409 (the first attempt's key still held), for at most `ms`. */
async function retryWhileHeld(body: unknown, key: string, ms: number) {
  const until = Date.now() + ms;
  for (;;) {
    const answer = await call("POST", "/v1/new-page", body, { "idempotency-key": key });
    if (answer.status !== 409 || Date.now() > until) return answer;
    await sleep(250);
  }
}

describe.skipIf(!canRunThrowawayPostgres)("the gateway's database stalling or stopping", () => {
  test("when PostgreSQL stalls, then a key not yet looked up and a POST with an Idempotency-Key are refused 503 within the database timeout, and the key runs afresh once it is back", async () => {
    const fresh = apiClient(system.baseUrl, await tenant.key({ rate_limit_per_minute: 1_000_000 }));
    const page = await call("POST", "/v1/new-page", { title: "before the stall" });
    expect(page.status).toBe(201);
    await refusedDuringStall(
      [() => fresh("GET", `/v1/new-page/${page.body.id}`), () => call("POST", "/v1/new-page", { title: "during the stall" }, { "idempotency-key": "stalled" })],
      DATABASE_TIMEOUT_MS + 1_500,
    );
    // The claim sent during the stall lands once PostgreSQL goes on; the gateway lets it go.
    const retried = await retryWhileHeld({ title: "during the stall" }, "stalled", 10_000);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotency-replayed")).toBeNull();
    const replayed = await call("POST", "/v1/new-page", { title: "during the stall" }, { "idempotency-key": "stalled" });
    expect(replayed.body.id).toBe(retried.body.id);
  }, 60_000);

  test("when PostgreSQL stalls, then the management API answers a read and a change 503 within its timeout, and the change is not made once PostgreSQL is back", async () => {
    const { id } = await tenant.keyWithId({ rate_limit_per_minute: 1_000 });
    const manage = (method: string, path: string, body?: unknown) =>
      fetch(`${system.adminUrl}/admin/v1/workspaces/${tenant.workspaceId}${path}`, {
        method,
        // A budget of its own choosing is not the caller's to give.
        headers: { authorization: `Bearer ${system.adminToken}`, "content-type": "application/json", "x-request-budget-ms": "60000" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(readResponse);
    await refusedDuringStall([() => manage("GET", ""), () => manage("PATCH", `/api-keys/${id}`, { rate_limit_per_minute: 7 })], ADMIN_TIMEOUT_MS + 1_000);
    await sleep(1_000);
    // What the change had sent before its 503 was rolled back once PostgreSQL went on.
    const key = await manage("GET", `/api-keys/${id}`);
    expect(key.status).toBe(200);
    expect(key.body.rate_limit_per_minute).toBe(1_000);
  }, 60_000);

  test("when PostgreSQL stops while a POST with an Idempotency-Key runs, then the 503 it gets frees the key once PostgreSQL is back: the retry runs afresh, not an unknown outcome", async () => {
    const sql = postgres(system.databaseUrl!, { max: 1, onnotice: () => {} });
    await sql.unsafe(`
      create or replace function slow_insert() returns trigger language plpgsql as $$
        begin if new.title like 'SLOW%' then perform pg_sleep(1.5); end if; return new; end $$;
      create or replace trigger slow_insert before insert on pages for each row execute function slow_insert();`);
    await sql.end();
    const body = { title: "SLOW create" };
    const first = call("POST", "/v1/new-page", body, { "idempotency-key": "stopped" });
    await sleep(500);
    await database.stop();
    const refused = await first;
    expectError(refused, 503, "service_unavailable");
    await sleep(1_000);
    await database.start();
    // Past the key's lock (the upstream timeout and 5 s): had the key stayed held, it would now be an unknown outcome.
    await sleep(UPSTREAM_TIMEOUT_MS + 5_000);
    const retried = await retryWhileHeld(body, "stopped", 10_000);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotency-replayed")).toBeNull();
    const check = postgres(system.databaseUrl!, { max: 1, onnotice: () => {} });
    try {
      expect((await check`select count(*)::int as n from pages where title = 'SLOW create'`)[0]!.n).toBe(1);
    } finally {
      await check.end();
    }
  }, 90_000);
});

import { afterAll, describe, expect, test } from "bun:test";
import { apiClient, isErrorObject } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";
import { LEASE_MS } from "../../../gateway/src/ratelimit/limiter";
import { redisKeys } from "../../../gateway/src/ratelimit/redis-keys";
import { freshWindow, hasRedisServer, load, sleep, throwawayRedis, withRedis } from "./helpers";

const REDIS_TIMEOUT_MS = 250;
/**
 * A request must never hang on Redis (an offline queue or reconnect wait would
 * hold it for seconds): at most one command timeout, plus generous room for a
 * test machine busy with other suites.
 */
const MAX_WAIT_MS = REDIS_TIMEOUT_MS * 2 + 1500;
const runnable = withRedis && hasRedisServer;

type Redis = Awaited<ReturnType<typeof throwawayRedis>>;

/** Sends requests of a fresh key until its count shows up in Redis: limiting goes through Redis again. */
async function untilCountedInRedis(system: TestSystem, tenant: Tenant, redis: Redis, deadlineMs: number) {
  const { id, key } = await tenant.keyWithId({ rate_limit_per_minute: 1000 });
  const call = apiClient(system.baseUrl, key);
  const statuses: number[] = [];
  const counter = redisKeys.counter(tenant.workspaceId, id);
  while (Date.now() < deadlineMs) {
    statuses.push((await call("GET", "/v1/new-page")).status);
    if (Number(await redis.client.hget(counter, "c").catch(() => null)) > 0) return { statuses, counted: true };
    await sleep(100);
  }
  return { statuses, counted: false };
}

/**
 * A system whose gateway limits through a throwaway redis-server, a seeded workspace and a
 * client whose own limit is never reached. `dispose` stops both; a failed start stops what began.
 */
async function systemOnThrowawayRedis(gatewayEnv: Record<string, string> = {}) {
  const redis = await throwawayRedis();
  let system: TestSystem | undefined;
  const dispose = async () => {
    await system?.stop();
    await redis.dispose();
  };
  try {
    await redis.start();
    system = await startSystem({ env: { REDIS_URL: redis.url }, gatewayEnv: { REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS), ...gatewayEnv } });
    const tenant = await seedTenant(system);
    await redis.client.connect();
    const call = apiClient(system.baseUrl, await tenant.key({ rate_limit_per_minute: 1_000_000 }));
    return { redis, system, tenant, call, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

type OnThrowawayRedis = Awaited<ReturnType<typeof systemOnThrowawayRedis>>;

describe.skipIf(!runnable)("Redis stopped in the middle of a load, open mode (default)", () => {
  let setup: OnThrowawayRedis | undefined;
  afterAll(async () => {
    await setup?.dispose();
  });

  test("when redis-server dies mid-load, then no request gets a 5xx or waits past the timeout, the in-memory limit applies, and limiting through Redis resumes once it is back", async () => {
    setup = await systemOnThrowawayRedis();
    const { redis, system, tenant, call: busy } = setup;
    await freshWindow(20);

    let phase: "up" | "down" | "done" = "up";
    const running = load(() => busy("GET", "/v1/new-page"), 8, () => phase === "done");
    await sleep(1000);
    await redis.stop();
    const downSince = Date.now();
    phase = "down";
    await sleep(500);

    // The in-memory limit of a key that starts counting while Redis is down.
    const small = apiClient(system.baseUrl, await tenant.key({ rate_limit_per_minute: 3 }));
    const smallStatuses = [];
    for (let i = 0; i < 5; i++) smallStatuses.push((await small("GET", "/v1/new-page")).status);
    await sleep(1500);

    const upAgain = Date.now(); // before starting: it answers as soon as it listens, before start() returns
    await redis.start();
    await redis.client.ping().catch(() => undefined);
    const recovery = await untilCountedInRedis(system, tenant, redis, Date.now() + 10_000);
    phase = "done";
    const results = await running;

    const during = results.filter((r) => r.startedAt >= downSince && r.at < upAgain);
    const maxDownMs = Math.max(...during.map((r) => r.ms));
    console.log(`open mode: ${results.length} requests, ${during.length} while Redis was down, max latency then ${Math.round(maxDownMs)} ms; Redis counting again after ${recovery.statuses.length} request(s), ${Date.now() - upAgain} ms`);

    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(during.length).toBeGreaterThan(0);
    expect(new Set(results.map((r) => r.status))).toEqual(new Set([200]));
    expect(maxDownMs).toBeLessThan(MAX_WAIT_MS);
    expect(smallStatuses).toEqual([200, 200, 200, 429, 429]);
    expect(recovery.counted).toBe(true);
    expect(recovery.statuses.every((status) => status === 200)).toBe(true);
  }, 120_000);
});

describe.skipIf(!runnable)("Redis stopped in the middle of a load, RATE_LIMIT_FAILURE_MODE=closed", () => {
  let setup: OnThrowawayRedis | undefined;
  afterAll(async () => {
    await setup?.dispose();
  });

  test("when redis-server dies mid-load, then requests answer 503 service_unavailable within the timeout, and 200 again once it is back", async () => {
    setup = await systemOnThrowawayRedis({ RATE_LIMIT_FAILURE_MODE: "closed" });
    const { redis, system, tenant, call } = setup;

    let phase: "up" | "down" | "done" = "up";
    const running = load(() => call("GET", "/v1/new-page"), 8, () => phase === "done");
    await sleep(1000);
    // A request that ends while redis-server is shutting down may be answered either way: only those before it are held to 200.
    const stopping = Date.now();
    await redis.stop();
    const downSince = Date.now();
    phase = "down";
    await sleep(1500);
    const refused = await call("GET", "/v1/new-page");
    const upAgain = Date.now(); // before starting: it answers as soon as it listens, before start() returns
    await redis.start();
    const recovery = await untilCountedInRedis(system, tenant, redis, Date.now() + 10_000);
    phase = "done";
    const results = await running;

    const before = results.filter((r) => r.at < stopping);
    // A lease taken before the stop is spent until its deadline: those requests were counted in Redis when it was granted.
    const during = results.filter((r) => r.startedAt >= downSince + LEASE_MS && r.at < upAgain);
    console.log(`closed mode: ${results.length} requests, ${during.length} while Redis was down (${during.filter((r) => r.status === 503).length} × 503), max latency then ${Math.round(Math.max(...during.map((r) => r.ms)))} ms`);

    expect(before.length).toBeGreaterThan(0);
    expect(before.every((r) => r.status === 200)).toBe(true);
    expect(during.length).toBeGreaterThan(0);
    expect(during.every((r) => r.status === 503)).toBe(true);
    expect(Math.max(...during.map((r) => r.ms))).toBeLessThan(MAX_WAIT_MS);
    expect(refused.status).toBe(503);
    expect(isErrorObject(refused.body)).toBe(true);
    expect(refused.body.error.code).toBe("service_unavailable");
    expect(recovery.counted).toBe(true);
    expect(recovery.statuses.at(-1)).toBe(200);
  }, 120_000);
});

describe.skipIf(!runnable)("a stalled Redis, open mode", () => {
  let setup: OnThrowawayRedis | undefined;
  afterAll(async () => {
    await setup?.dispose();
  });

  test("when redis-server stops answering without closing connections, then requests are served after about REDIS_TIMEOUT_MS, never stalled, and Redis is used again once it answers", async () => {
    setup = await systemOnThrowawayRedis();
    const { redis, system, tenant, call } = setup;

    redis.pause();
    const stalled = await load(() => call("GET", "/v1/new-page"), 4, (() => {
      const until = Date.now() + 2000;
      return () => Date.now() > until;
    })());
    redis.resume();
    const recovery = await untilCountedInRedis(system, tenant, redis, Date.now() + 10_000);
    const maxMs = Math.max(...stalled.map((r) => r.ms));
    console.log(`stalled Redis: ${stalled.length} requests in 2 s, statuses ${[...new Set(stalled.map((r) => r.status))]}, max latency ${Math.round(maxMs)} ms`);

    expect(stalled.length).toBeGreaterThan(0);
    expect(stalled.every((r) => r.status === 200)).toBe(true);
    expect(maxMs).toBeLessThan(MAX_WAIT_MS);
    expect(recovery.counted).toBe(true);
  }, 120_000);
});

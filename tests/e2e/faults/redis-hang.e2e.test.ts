import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { generateKey } from "../../../gateway/src/keys/key-format";
import { apiClient, type Call } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";
import { canRunThrowawayPostgres, throwawayPostgres, type ThrowawayPostgres } from "../../harness/throwaway-postgres";
import { hasRedisServer, load, throwawayRedis } from "../ratelimit/helpers";
import { percentile, sleep } from "./helpers";

/**
 * A Redis that hangs (DEBUG SLEEP: connections stay open, nothing answers)
 * must not slow requests down in open mode: the first calls that time out mark
 * Redis down for the limiter, the failed-authentication check and the epochs
 * alike, and from then on only one probe at a time waits on it.
 */
const REDIS_TIMEOUT_MS = 250;
const HANG_SECONDS = 8;
/** What "within 20 ms of normal" allows. */
const ALLOWED_P50_RISE_MS = 20;

type ThrowawayRedis = Awaited<ReturnType<typeof throwawayRedis>>;
let redis: ThrowawayRedis | undefined;
let database: ThrowawayPostgres | undefined;
let system: TestSystem | undefined;

describe.skipIf(!canRunThrowawayPostgres || !hasRedisServer)("a hung Redis, open mode", () => {
  beforeAll(async () => {
    redis = await throwawayRedis(["--enable-debug-command", "local"]);
    await redis.start();
    database = await throwawayPostgres();
    system = await startSystem({ databaseServerUrl: database.url, env: { REDIS_URL: redis.url }, gatewayEnv: { REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS) } });
  });
  afterAll(async () => {
    await system?.stop();
    await redis?.dispose();
    await database?.dispose();
  });

  test("when Redis hangs under load, then the p50 latency of valid and of unknown keys stays within 20 ms of normal and every answer is the usual one", async () => {
    const tenant = await seedTenant(system!);
    const call: Call = apiClient(system!.baseUrl, await tenant.key({ rate_limit_per_minute: 1_000_000 }));
    const unknown: Call = apiClient(system!.baseUrl, generateKey("wsk").key);
    const page = (await call("POST", "/v1/new-page", { title: "read under a hung Redis" })).body.id as string;

    let done = false;
    const reads = load(() => call("GET", `/v1/new-page/${page}`), 4, () => done);
    const guesses = load(() => unknown("GET", `/v1/new-page/${page}`), 1, () => done);
    await sleep(1000);
    const normalFrom = Date.now();
    await sleep(3000);
    const hangFrom = Date.now();
    const sleeper = new Redis(redis!.url, { maxRetriesPerRequest: 0 });
    sleeper.on("error", () => {});
    const hang = sleeper.call("DEBUG", "SLEEP", String(HANG_SECONDS));
    await hang;
    const hangUntil = Date.now();
    sleeper.disconnect();
    await sleep(1500);
    done = true;
    const [valid, invalid] = await Promise.all([reads, guesses]);

    const phase = (results: typeof valid, from: number, until: number) => results.filter((r) => r.startedAt >= from && r.startedAt < until);
    const p50 = (results: typeof valid) => percentile(results.map((r) => r.ms), 50);
    const normal = phase(valid, normalFrom, hangFrom);
    const hung = phase(valid, hangFrom, hangUntil);
    const normalGuesses = phase(invalid, normalFrom, hangFrom);
    const hungGuesses = phase(invalid, hangFrom, hangUntil);
    console.log(
      `hung Redis (DEBUG SLEEP ${HANG_SECONDS}, REDIS_TIMEOUT_MS ${REDIS_TIMEOUT_MS}): valid key p50 ${p50(normal).toFixed(1)} ms normal (${normal.length} requests), ` +
        `${p50(hung).toFixed(1)} ms during the hang (${hung.length} requests, p99 ${percentile(hung.map((r) => r.ms), 99).toFixed(1)} ms, max ${Math.max(...hung.map((r) => r.ms)).toFixed(0)} ms); ` +
        `unknown key p50 ${p50(normalGuesses).toFixed(1)} ms normal, ${p50(hungGuesses).toFixed(1)} ms during the hang`,
    );
    const metrics = await (await fetch(`${system!.adminUrl}/metrics`)).text();
    console.log(`hung Redis: ${metrics.split("\n").filter((line) => /^ratelimit_(redis_outages|redis_errors|fallback_decisions)_total/.test(line)).join(", ")}`);

    expect(hung.length).toBeGreaterThan(0);
    expect(new Set(valid.map((r) => r.status))).toEqual(new Set([200]));
    expect(new Set(invalid.map((r) => r.status))).toEqual(new Set([401]));
    expect(p50(hung)).toBeLessThanOrEqual(p50(normal) + ALLOWED_P50_RISE_MS);
    expect(p50(hungGuesses)).toBeLessThanOrEqual(p50(normalGuesses) + ALLOWED_P50_RISE_MS);
    expect(metrics).toMatch(/^ratelimit_redis_outages_total [1-9]/m);
  });
});

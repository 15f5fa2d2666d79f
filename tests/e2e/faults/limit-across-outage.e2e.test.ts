import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiClient, type ApiResponse } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";
import { canRunThrowawayPostgres, throwawayPostgres, type ThrowawayPostgres } from "../../harness/throwaway-postgres";
import { freshWindow, hasRedisServer, throwawayRedis } from "../ratelimit/helpers";
import { sleep } from "./helpers";

/**
 * One clock minute of a key limited to 300, sent through two replicas in turn,
 * with Redis killed (and restarted empty, as without persistence) in the middle.
 * Each replica limits on in memory from the last count it saw in Redis, and what
 * it admitted is added to Redis when it is back, so the minute admits no more
 * than the bound gateway/src/ratelimit/README.md gives:
 * the count before the outage C0, plus max(L, Σ over replicas of (L − c_i)),
 * c_i being the last count replica i saw in Redis.
 */
const LIMIT = 300;
const REPLICAS = 2;

type ThrowawayRedis = Awaited<ReturnType<typeof throwawayRedis>>;
let redis: ThrowawayRedis | undefined;
let database: ThrowawayPostgres | undefined;
let system: TestSystem | undefined;

describe.skipIf(!canRunThrowawayPostgres || !hasRedisServer)("the rate limit across a Redis outage, two replicas", () => {
  beforeAll(async () => {
    redis = await throwawayRedis();
    await redis.start();
    database = await throwawayPostgres();
    system = await startSystem({ replicas: REPLICAS, databaseServerUrl: database.url, env: { REDIS_URL: redis.url } });
  });
  afterAll(async () => {
    await system?.stop();
    await redis?.dispose();
    await database?.dispose();
  });

  test("when Redis is down for part of a minute, then the key's minute admits no more than the documented bound, and the limit holds again once Redis is back", async () => {
    const tenant = await seedTenant(system!);
    const key = await tenant.key({ rate_limit_per_minute: LIMIT });
    const replicas = system!.baseUrls.map((url) => apiClient(url, key));
    const lastSeen: number[] = replicas.map(() => 0);
    let sent = 0;
    const send = async (): Promise<ApiResponse> => {
      const replica = sent++ % REPLICAS;
      return replicas[replica]!("GET", "/v1/new-page");
    };

    await freshWindow(40);
    const window = Math.floor(Date.now() / 60_000);
    let admitted = 0;
    // Half the limit through Redis, the two replicas in turn.
    for (let i = 0; i < LIMIT / 2; i++) {
      const replica = sent % REPLICAS;
      const response = await send();
      if (response.status === 200) admitted++;
      lastSeen[replica] = LIMIT - Number(response.headers.get("x-ratelimit-remaining"));
    }
    const countBefore = sent;

    await redis!.stop();
    const during: number[] = [];
    for (let i = 0; i < 2 * LIMIT; i++) during.push((await send()).status);
    admitted += during.filter((status) => status === 200).length;

    await redis!.start();
    const after: number[] = [];
    const backUntil = Date.now() + 4000;
    while (Date.now() < backUntil) {
      after.push((await send()).status);
      await sleep(10);
    }
    admitted += after.filter((status) => status === 200).length;
    const sameWindow = Math.floor(Date.now() / 60_000) === window;

    const bound = countBefore + Math.max(LIMIT, lastSeen.reduce((sum, seen) => sum + Math.max(0, LIMIT - seen), 0));
    console.log(
      `limit ${LIMIT} on ${REPLICAS} replicas, Redis killed after ${countBefore} requests (replicas had last seen counts ${lastSeen.join(", ")}): ` +
        `${admitted} admitted in the minute (bound ${bound}); during the outage ${during.filter((s) => s === 200).length} of ${during.length} admitted, ` +
        `after it ${after.filter((s) => s === 200).length} of ${after.length}`,
    );

    expect(sameWindow).toBe(true);
    expect(admitted).toBeLessThanOrEqual(bound);
    // The outage did not reset the key: each replica counted on from what it had seen.
    expect(during.filter((status) => status === 200).length).toBeLessThanOrEqual(REPLICAS * LIMIT - lastSeen.reduce((a, b) => a + b, 0));
    // Back on Redis, the counts admitted in memory were handed back: nothing more is admitted this minute.
    expect(after.slice(-20).every((status) => status === 429)).toBe(true);
  });
});

import { describe, expect, test } from "bun:test";
import { ApiError, type Logger } from "@ws/shared";
import { decide, windowOf, type LimitedKey } from "./limiter";
import { createMemoryLimiter } from "./memory-limiter";
import { createRedisGate } from "./redis-gate";
import type { CountedElsewhere, RedisLimiter } from "./redis-limiter";
import { createResilientLimiter, type FailureMode } from "./resilient-limiter";

const MINUTE_MS = (1_763_700_000 - (1_763_700_000 % 60)) * 1000;

function recordingLogger() {
  const lines: string[] = [];
  const log = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  const logger = { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") } as unknown as Logger;
  return { logger, lines };
}

/** Stands in for the Redis script: counts per key and window, adds what was counted elsewhere in the same window. */
function switchableRedis(clock: () => number) {
  let up = true;
  let delayMs = 0;
  const counts = new Map<string, number>();
  const attempt = async (key: LimitedKey, elsewhere?: CountedElsewhere) => {
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (!up) throw new Error("Stream isn't writeable");
    const now = clock() / 1000;
    const add = 1 + (elsewhere && elsewhere.window === windowOf(now) ? elsewhere.count : 0);
    const count = (counts.get(key.id) ?? 0) + add;
    counts.set(key.id, count);
    return decide(count, key.limit, now, 0, "5");
  };
  const primary: RedisLimiter = { attempt, hit: attempt, leased: () => undefined, async close() {} };
  return { primary, counts, setUp: (value: boolean) => (up = value), setDelay: (ms: number) => (delayMs = ms) };
}

function build(mode: FailureMode) {
  const clock = () => MINUTE_MS + 20_000;
  const redis = switchableRedis(clock);
  const { logger, lines } = recordingLogger();
  const gate = createRedisGate({ logger });
  const limiter = createResilientLimiter({
    primary: redis.primary,
    fallback: createMemoryLimiter({ suspendAfterMultiple: 2, suspendSeconds: 60 }, null, clock),
    mode,
    gate,
  });
  return { limiter, ...redis, lines };
}

const key = { id: "key_a", workspaceId: "ws_1", limit: 2 };

describe("resilient limiter", () => {
  test("when Redis fails in open mode, then the in-memory limiter decides without an epoch, the outage is logged once, and counted", async () => {
    const { limiter, setUp, lines } = build("open");
    setUp(false);
    const outcomes = [];
    for (let i = 0; i < 3; i++) {
      const decision = await limiter.hit(key);
      outcomes.push(decision.outcome);
      expect(decision.authEpoch).toBeNull();
    }
    expect(outcomes).toEqual(["allowed", "allowed", "limited"]);
    expect(lines.filter((line) => line.startsWith("error"))).toHaveLength(1);
    expect(limiter.stats).toMatchObject({ degraded: true, outages: 1, redisErrors: 3, fallbackDecisions: 3 });
  });

  test("when Redis comes back, then the very next request is decided by Redis and the recovery is logged", async () => {
    const { limiter, setUp, lines } = build("open");
    setUp(false);
    await limiter.hit(key);
    setUp(true);
    expect((await limiter.hit(key)).authEpoch).toBe("5");
    expect(limiter.stats.degraded).toBe(false);
    expect(lines.at(-1)).toContain("reachable again");
  });

  test("when Redis fails in closed mode, then the request is refused with 503 service_unavailable", async () => {
    const { limiter, setUp } = build("closed");
    setUp(false);
    const error = await limiter.hit(key).catch((caught) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect((error as ApiError).code).toBe("service_unavailable");
    expect(limiter.stats.rejectedRequests).toBe(1);
  });

  test("when Redis stalls during an outage, then only one request at a time waits on it and the others are decided in memory at once", async () => {
    const { limiter, setUp, setDelay } = build("open");
    setUp(false);
    await limiter.hit(key);
    setDelay(50);
    const started = performance.now();
    const timings = await Promise.all(
      Array.from({ length: 5 }, async () => {
        await limiter.hit({ ...key, limit: 100 });
        return performance.now() - started;
      }),
    );
    expect(timings.filter((ms) => ms >= 45)).toHaveLength(1);
    expect(limiter.stats.redisErrors).toBe(2);
  });

  test("when Redis fails in the middle of a window, then the memory limiter counts on from the last count Redis gave for the key", async () => {
    const { limiter, setUp } = build("open");
    const limited = { ...key, limit: 5 };
    for (let i = 0; i < 3; i++) expect((await limiter.hit(limited)).outcome).toBe("allowed");
    setUp(false);
    const during = [];
    for (let i = 0; i < 3; i++) during.push((await limiter.hit(limited)).outcome);
    expect(during).toEqual(["allowed", "allowed", "limited"]);
  });

  test("when Redis comes back, then the requests counted in memory meanwhile are added to the key's count in Redis", async () => {
    const { limiter, setUp, counts } = build("open");
    const limited = { ...key, limit: 5 };
    for (let i = 0; i < 2; i++) await limiter.hit(limited);
    setUp(false);
    for (let i = 0; i < 2; i++) await limiter.hit(limited);
    setUp(true);
    const back = await limiter.hit(limited);
    expect(back.count).toBe(5);
    expect(counts.get(limited.id)).toBe(5);
    expect((await limiter.hit(limited)).outcome).toBe("limited");
  });

  test("when the call that would carry the memory count to Redis fails, then the count is carried by the next one", async () => {
    const { limiter, setUp, counts } = build("open");
    setUp(false);
    for (let i = 0; i < 3; i++) await limiter.hit({ ...key, limit: 10 });
    await limiter.hit({ ...key, limit: 10 });
    setUp(true);
    await limiter.hit({ ...key, limit: 10 });
    expect(counts.get(key.id)).toBe(5);
  });

  test("when Redis says to wait for other replicas' leases longer than its timeout, then the request waits and is decided through Redis, and no outage is declared", async () => {
    const clock = () => MINUTE_MS + 20_000;
    const gate = createRedisGate({ timeoutMs: 100 });
    let attempts = 0;
    const attempt = async (limited: LimitedKey) => (++attempts === 1 ? { waitMs: 150 } : decide(1, limited.limit, clock() / 1000, 0, "5"));
    const limiter = createResilientLimiter({
      primary: { attempt, hit: async (limited) => decide(1, limited.limit, clock() / 1000, 0, "5"), leased: () => undefined, async close() {} },
      fallback: createMemoryLimiter({ suspendAfterMultiple: 2, suspendSeconds: 60 }, null, clock),
      mode: "closed",
      gate,
    });
    const startedAt = performance.now();
    const decision = await limiter.hit(key);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(140);
    expect(attempts).toBe(2);
    expect(decision.authEpoch).toBe("5");
    expect(gate.stats.outages).toBe(0);
    expect(gate.stats.leaseWaits).toBe(1);
  });
});

import { describe, expect, test } from "bun:test";
import { ApiError, type Logger } from "@ws/shared";
import { createMemoryLimiter } from "./memory-limiter";
import type { RateLimiter } from "./limiter";
import { createResilientLimiter, type FailureMode } from "./resilient-limiter";

function recordingLogger() {
  const lines: string[] = [];
  const log = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  const logger = { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") } as unknown as Logger;
  return { logger, lines };
}

function switchable() {
  let up = true;
  let delayMs = 0;
  const primary: RateLimiter = {
    async hit(key) {
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (!up) throw new Error("Stream isn't writeable");
      return { outcome: "allowed", limit: key.limit, remaining: key.limit - 1, resetAt: 60, retryAfter: 0, authEpoch: "5" };
    },
    async close() {},
  };
  return { primary, setUp: (value: boolean) => (up = value), setDelay: (ms: number) => (delayMs = ms) };
}

function build(mode: FailureMode) {
  const { primary, setUp, setDelay } = switchable();
  const { logger, lines } = recordingLogger();
  const limiter = createResilientLimiter({ primary, fallback: createMemoryLimiter({ suspendAfterMultiple: 2, suspendSeconds: 60 }, null), mode, logger });
  return { limiter, setUp, setDelay, lines };
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
    expect(limiter.stats.degraded).toBe(true);
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
});

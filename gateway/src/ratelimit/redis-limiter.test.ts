import { afterAll, describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { createRedisAuthFailureLimiter } from "./auth-failure-limiter";
import { createRedisLimiter } from "./redis-limiter";
import { redisKeys } from "./redis-keys";

const url = process.env.REDIS_URL;
const redis = url ? new Redis(url, { maxRetriesPerRequest: 0, lazyConnect: true }) : null;
afterAll(() => redis?.disconnect());
/** The part Redis Cluster hashes (its hash-tag rule): between the first "{" and the next "}", when not empty. */
function hashedPart(key: string): string {
  const open = key.indexOf("{");
  const close = open < 0 ? -1 : key.indexOf("}", open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}
/** Runs `work` and counts the rate-limit script calls Redis executed meanwhile (from INFO commandstats). */
async function scriptCalls<T>(work: () => Promise<T>): Promise<{ result: T; count: number }> {
  const evalshaCalls = async () => {
    const stats = await redis!.info("commandstats");
    return ["eval", "evalsha"].reduce((sum, name) => sum + Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0), 0);
  };
  const before = await evalshaCalls();
  const result = await work();
  return { result, count: (await evalshaCalls()) - before };
}
/** Waits out the last 2 s of a clock minute, so a batch is not split by the window's end. */
async function awayFromMinuteEnd() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 58_000) await Bun.sleep(60_000 - intoMinute + 100);
}
const unique = () => `${process.pid}_${Date.now()}_${Math.random().toString(36).slice(2)}`;

describe("redis keys", () => {
  test("when a script touches a key's counter, suspension and workspace epoch, then all three hash to one cluster slot", () => {
    const slots = new Set([redisKeys.counter("ws_1", "key_1"), redisKeys.suspension("ws_1", "key_1"), redisKeys.authEpoch("ws_1")].map(hashedPart));
    expect([...slots]).toEqual(["ws:ws_1"]);
    expect(hashedPart(redisKeys.authFailures("2001:db8::1"))).toBe("ip:2001:db8::1");
  });
});

describe.skipIf(!url)("redis limiter scripts", () => {
  test("when a key is hit, then the count rises in its clock-minute window, the epoch is read, and suspension happens once per window", async () => {
    const workspaceId = `ws_${unique()}`;
    await redis!.set(redisKeys.authEpoch(workspaceId), "42");
    const limiter = createRedisLimiter(redis!, { suspendAfterMultiple: 2, suspendSeconds: 1 });
    const key = { id: "key_1", workspaceId, limit: 2 };
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await limiter.hit(key));
    expect(decisions.map((d) => d.remaining)).toEqual([1, 0, 0, 0, 0, 0]);
    expect(decisions[0]!.authEpoch).toBe("42");
    expect(decisions[0]!.resetAt % 60).toBe(0);
    // A straddled minute restarts the count; accept either shape but never a negative or a missing suspension.
    if (decisions[0]!.resetAt === decisions[5]!.resetAt) {
      expect(decisions.map((d) => d.outcome)).toEqual(["allowed", "allowed", "limited", "limited", "suspended", "suspended"]);
      await Bun.sleep(1100);
      const after = await limiter.hit(key);
      if (after.resetAt === decisions[0]!.resetAt) expect(after.outcome).toBe("limited");
    }
  });

  test("when a key's limit is lowered below half of what it has sent this minute, then its requests are limited, not suspended", async () => {
    const limiter = createRedisLimiter(redis!, { suspendAfterMultiple: 2, suspendSeconds: 60 });
    const workspaceId = `ws_${unique()}`;
    const first = await limiter.hit({ id: "key_1", workspaceId, limit: 100 });
    for (let i = 0; i < 29; i++) await limiter.hit({ id: "key_1", workspaceId, limit: 100 });
    const lowered = [];
    for (let i = 0; i < 3; i++) lowered.push(await limiter.hit({ id: "key_1", workspaceId, limit: 10 }));
    // A straddled minute restarts the count; only check within one window.
    if (lowered[2]!.resetAt === first.resetAt) expect(lowered.map((d) => [d.count, d.outcome])).toEqual([[31, "limited"], [32, "limited"], [33, "limited"]]);
  });

  test("when requests counted in memory during an outage come along, then those of the current window are added to the count and older ones are not", async () => {
    const limiter = createRedisLimiter(redis!, { suspendAfterMultiple: 2, suspendSeconds: 1 });
    const key = { id: "key_1", workspaceId: `ws_${unique()}`, limit: 100 };
    const first = await limiter.hit(key);
    const window = first.resetAt / 60 - 1;
    const carried = await limiter.hit(key, { window, count: 7 });
    const stale = await limiter.hit(key, { window: window - 1, count: 7 });
    // A straddled minute restarts the count; only check within one window.
    if (first.resetAt === stale.resetAt) expect([first.count, carried.count, stale.count]).toEqual([1, 9, 10]);
  });

  test("when many requests of one key arrive together, then they share one script call and are decided as if counted one after another", async () => {
    const limiter = createRedisLimiter(redis!, { suspendAfterMultiple: 2, suspendSeconds: 60 });
    const workspaceId = `ws_${unique()}`;
    const key = { id: "key_1", workspaceId, limit: 5 };
    await limiter.hit({ ...key, id: "key_warm" }); // loads the script, so the count below is of calls alone
    await awayFromMinuteEnd();
    const calls = await scriptCalls(() => Promise.all(Array.from({ length: 12 }, () => limiter.hit(key))));
    const decisions = calls.result;
    // A straddled minute splits the batch's window; only check within one.
    if (decisions[0]!.resetAt !== decisions[11]!.resetAt) return;
    expect(calls.count).toBe(1);
    expect(decisions.map((d) => d.count)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(decisions.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
    // Past 2 × 5 the key is suspended: from the 11th request on, not before.
    expect(decisions.map((d) => d.outcome)).toEqual([...Array(5).fill("allowed"), ...Array(5).fill("limited"), "suspended", "suspended"]);
    expect(decisions[10]!.retryAfter).toBe(60);
    expect(await redis!.exists(redisKeys.suspension(workspaceId, "key_1"))).toBe(1);
    const next = await limiter.hit(key);
    if (next.resetAt === decisions[0]!.resetAt) expect([next.count, next.outcome]).toEqual([13, "suspended"]);
  });

  test("when a key is already suspended, then every request of a batch is refused as suspended", async () => {
    const limiter = createRedisLimiter(redis!, { suspendAfterMultiple: 2, suspendSeconds: 60 });
    const workspaceId = `ws_${unique()}`;
    await redis!.set(redisKeys.suspension(workspaceId, "key_1"), "1", "EX", 30);
    const decisions = await Promise.all(Array.from({ length: 3 }, () => limiter.hit({ id: "key_1", workspaceId, limit: 100 })));
    expect(decisions.map((d) => d.outcome)).toEqual(["suspended", "suspended", "suspended"]);
    expect(decisions.every((d) => d.retryAfter > 0 && d.retryAfter <= 30)).toBe(true);
  });

  test("when two keys and two limits of one key arrive together, then each is counted on its own", async () => {
    const limiter = createRedisLimiter(redis!, { suspendAfterMultiple: 2, suspendSeconds: 60 });
    const workspaceId = `ws_${unique()}`;
    await awayFromMinuteEnd();
    const [a1, b1, a2, aOther] = await Promise.all([
      limiter.hit({ id: "key_a", workspaceId, limit: 10 }),
      limiter.hit({ id: "key_b", workspaceId, limit: 10 }),
      limiter.hit({ id: "key_a", workspaceId, limit: 10 }),
      limiter.hit({ id: "key_a", workspaceId, limit: 3 }),
    ]);
    if (a1!.resetAt !== aOther!.resetAt) return;
    expect(b1!.count).toBe(1);
    expect([a1!.count, a2!.count, aOther!.count].sort((x, y) => x - y)).toEqual([1, 2, 3]);
    expect(aOther!.limit).toBe(3);
  });

  test("when calls of several keys are due in one turn, then they leave in one pipeline, and a lone call leaves without one", async () => {
    const client = new Redis(url!, { maxRetriesPerRequest: 0 });
    try {
      const made = client.pipeline.bind(client);
      let pipelines = 0;
      client.pipeline = ((...args: Parameters<typeof made>) => {
        pipelines++;
        return made(...args);
      }) as typeof client.pipeline;
      const limiter = createRedisLimiter(client, { suspendAfterMultiple: 2, suspendSeconds: 60 });
      const workspaceId = `ws_${unique()}`;
      await limiter.hit({ id: "key_warm", workspaceId, limit: 10 });
      expect(pipelines).toBe(0);
      await awayFromMinuteEnd();
      const decisions = await Promise.all(["key_a", "key_b", "key_c"].map((id) => limiter.hit({ id, workspaceId, limit: 10 })));
      expect(pipelines).toBe(1);
      expect(decisions.map((d) => [d.count, d.outcome])).toEqual([[1, "allowed"], [1, "allowed"], [1, "allowed"]]);
    } finally {
      client.disconnect();
    }
  });

  test("when one key's call fails inside a turn's pipeline, then only that key's requests fail", async () => {
    const limiter = createRedisLimiter(redis!, { suspendAfterMultiple: 2, suspendSeconds: 60 });
    const workspaceId = `ws_${unique()}`;
    // A counter that is not a hash: the script's HGET fails with WRONGTYPE for this key alone.
    await redis!.set(redisKeys.counter(workspaceId, "key_broken"), "not a hash", "EX", 120);
    await awayFromMinuteEnd();
    const [good, broken, alsoGood] = await Promise.allSettled([
      limiter.hit({ id: "key_good", workspaceId, limit: 10 }),
      limiter.hit({ id: "key_broken", workspaceId, limit: 10 }),
      limiter.hit({ id: "key_good", workspaceId, limit: 10 }),
    ]);
    expect(good.status).toBe("fulfilled");
    expect(alsoGood.status).toBe("fulfilled");
    expect(broken.status).toBe("rejected");
    expect(String((broken as PromiseRejectedResult).reason)).toContain("WRONGTYPE");
    const counts = [good, alsoGood].map((settled) => (settled as PromiseFulfilledResult<{ count: number }>).value.count);
    expect(counts.sort()).toEqual([1, 2]);
  });

  test("when an address keeps failing, then the shared counter refuses it past the limit with a Retry-After within the minute", async () => {
    const limiter = createRedisAuthFailureLimiter(redis!, 2);
    const address = `203.0.113.${unique()}`;
    await limiter.recordFailure(address);
    await limiter.recordFailure(address);
    const error = await limiter.recordFailure(address).catch((caught) => caught);
    expect(error?.code).toBe("rate_limit_exceeded");
    const retryAfter = Number(error.toResponse().headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await redis!.ttl(redisKeys.authFailures(address))).toBeLessThanOrEqual(60);
  });
});

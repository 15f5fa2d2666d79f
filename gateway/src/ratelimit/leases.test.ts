import { afterAll, describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { LEASE_GRACE_MS, LEASE_MS, leaseBand, type LimitedKey, type RateLimitDecision } from "./limiter";
import { createMemoryLimiter } from "./memory-limiter";
import { createRedisGate } from "./redis-gate";
import { redisKeys } from "./redis-keys";
import { createRedisLimiter, leaseDeadline, untilDecided, type RedisLimiter } from "./redis-limiter";
import { createResilientLimiter } from "./resilient-limiter";

const url = process.env.REDIS_URL;
const clients: Redis[] = [];
const client = () => {
  const redis = new Redis(url!, { maxRetriesPerRequest: 0 });
  clients.push(redis);
  return redis;
};
afterAll(() => clients.forEach((redis) => redis.disconnect()));
const policy = { suspendAfterMultiple: 2, suspendSeconds: 60 };
/**
 * For tests of what a lease decides: long enough that a loaded machine's round trip does not outlast the
 * lease before the test spends it (a deployment's leases last LEASE_MS).
 */
const LONG_LEASE = { leaseMs: 500 };
const unique = () => `${process.pid}_${Date.now()}_${Math.random().toString(36).slice(2)}`;

/** Waits out the last 8 s of a clock minute, so a test's requests share one window. */
async function awayFromMinuteEnd() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 52_000) await Bun.sleep(60_000 - intoMinute + 100);
}

/** The key's counter hash: its count and the leases recorded in it. */
async function counter(redis: Redis, key: LimitedKey) {
  const fields = await redis.hgetall(redisKeys.counter(key.workspaceId, key.id));
  return { count: Number(fields.c ?? 0), leases: Object.keys(fields).filter((name) => name.startsWith("L")).length, outstanding: Number(fields.n ?? 0) };
}

/** The key's counter once `settled` holds for it (read for at most a second), else as it is then. */
async function counterOnce(redis: Redis, key: LimitedKey, settled: (read: Awaited<ReturnType<typeof counter>>) => boolean) {
  const giveUpAt = performance.now() + 1000;
  let read = await counter(redis, key);
  while (!settled(read) && performance.now() < giveUpAt) {
    await Bun.sleep(10);
    read = await counter(redis, key);
  }
  return read;
}

/** The key's counter once its leases (of `leaseMs`) are given back. */
async function counterWhenGivenBack(redis: Redis, key: LimitedKey, leaseMs = LEASE_MS) {
  await Bun.sleep(leaseMs);
  return counterOnce(redis, key, (read) => read.leases === 0);
}

/**
 * Two replicas on their own Redis connections, and a key of `limit` whose first 4 requests came at once to
 * the holder: it took a lease of 16 units (count 20), which it still holds.
 */
async function holderWithLease(limit: number) {
  const holderRedis = client();
  const holder = createRedisLimiter(holderRedis, policy);
  const redis = client();
  const other = createRedisLimiter(redis, policy);
  const key = { id: "key_1", workspaceId: `ws_${unique()}`, limit };
  await awayFromMinuteEnd();
  const first = await Promise.all(Array.from({ length: 4 }, () => holder.hit(key)));
  return { holderRedis, redis, other, key, first };
}

/** A hit as `RedisLimiter.hit` makes it, telling whether the lease decided it and how often it was told to wait. */
async function hit(limiter: RedisLimiter, key: LimitedKey): Promise<{ decision: RateLimitDecision; leased: boolean; waits: number }> {
  const leased = limiter.leased(key);
  if (leased) return { decision: leased, leased: true, waits: 0 };
  let waits = 0;
  const decision = await untilDecided(async (force) => {
    const result = await limiter.attempt(key, undefined, force);
    if ("waitMs" in result) waits++;
    return result;
  });
  return { decision, leased: false, waits };
}

describe("lease deadline", () => {
  test("when a lease is taken mid-window, then it is spent for LEASE_MS from the send", () => {
    expect(leaseDeadline(1_000, 1_763_700_000_000 + 20_000)).toBe(1_000 + LEASE_MS);
  });

  test("when a lease is taken just before the window ends, then it is spent no later than the window's end", () => {
    const windowEndMs = 1_763_700_000_000 - (1_763_700_000_000 % 60_000) + 60_000;
    expect(leaseDeadline(1_000, windowEndMs - 10)).toBe(1_010);
  });
});

describe.skipIf(!url)("leases of a key's quota", () => {
  test("when a key brings several requests in one turn, then it takes a lease and its next requests are decided without a round trip, never above the truth", async () => {
    const redis = client();
    const limiter = createRedisLimiter(redis, policy, LONG_LEASE);
    const key = { id: "key_1", workspaceId: `ws_${unique()}`, limit: 1000 };
    await awayFromMinuteEnd();
    const burst = await Promise.all(Array.from({ length: 4 }, () => limiter.hit(key)));
    expect(burst.map((d) => d.count)).toEqual([1, 2, 3, 4]);
    const granted = (await counter(redis, key)).count - 4;
    expect(granted).toBe(16);
    const next = [];
    for (let i = 0; i < 10; i++) next.push(await hit(limiter, key));
    expect(next.every((h) => h.leased)).toBe(true);
    expect((await counter(redis, key)).count).toBe(20);
    // The lease keeps the count at or below the count when it was granted plus a band (a tenth of the limit).
    const top = 4 + leaseBand(key.limit);
    next.forEach(({ decision }, i) => {
      expect(decision.outcome).toBe("allowed");
      expect(decision.remaining).toBeLessThanOrEqual(key.limit - (4 + i + 1));
      // At least what is left above the top, plus what this lease has left.
      expect(decision.remaining).toBe(key.limit - top + (granted - i - 1));
    });
    expect(next[0]!.decision.authEpoch).toBe(burst[0]!.authEpoch);
  });

  test("when a lease ends unspent, then its holder gives back what it did not use", async () => {
    const redis = client();
    const limiter = createRedisLimiter(redis, policy, LONG_LEASE);
    const key = { id: "key_1", workspaceId: `ws_${unique()}`, limit: 1000 };
    await awayFromMinuteEnd();
    await Promise.all(Array.from({ length: 4 }, () => limiter.hit(key)));
    for (let i = 0; i < 3; i++) await limiter.hit(key);
    expect(await counter(redis, key)).toEqual({ count: 20, leases: 1, outstanding: 1 });
    expect(await counterWhenGivenBack(redis, key, LONG_LEASE.leaseMs)).toEqual({ count: 7, leases: 0, outstanding: 0 });
  });

  test("when a replica shuts down holding a lease, then it gives back what it did not spend", async () => {
    const redis = client();
    const limiter = createRedisLimiter(redis, policy, LONG_LEASE);
    const key = { id: "key_1", workspaceId: `ws_${unique()}`, limit: 1000 };
    await awayFromMinuteEnd();
    await Promise.all(Array.from({ length: 4 }, () => limiter.hit(key)));
    await limiter.hit(key);
    await limiter.close();
    expect(await counter(redis, key)).toEqual({ count: 5, leases: 0, outstanding: 0 });
  });

  test("when three replicas share a key limited to 500 and 1000 requests come at once, then exactly 500 are admitted, Remaining is never above the truth and exact in the last tenth", async () => {
    const limit = 500;
    const redis = client();
    const replicas = [0, 1, 2].map(() => createRedisLimiter(client(), policy));
    const key = { id: "key_1", workspaceId: `ws_${unique()}`, limit };
    await awayFromMinuteEnd();
    let sent = 0;
    let admitted = 0;
    let leased = 0;
    const remainingOfAdmitted: number[] = [];
    const aboveTruth: string[] = [];
    const worker = async (limiter: RedisLimiter) => {
      while (sent < 1000) {
        sent++;
        // Every request admitted before this one was sent was counted before it.
        const admittedBefore = admitted;
        const result = await hit(limiter, key);
        if (result.leased) leased++;
        if (result.decision.outcome !== "allowed") continue;
        admitted++;
        remainingOfAdmitted.push(result.decision.remaining);
        if (result.decision.remaining > limit - (admittedBefore + 1)) aboveTruth.push(`${result.decision.remaining} with ${admittedBefore} admitted before it was sent`);
      }
    };
    await Promise.all(replicas.flatMap((limiter) => Array.from({ length: 10 }, () => worker(limiter))));
    console.log(`3 replicas, limit ${limit}: ${admitted} admitted of ${sent}, ${leased} decided from leases`);
    expect(admitted).toBe(limit);
    expect(leased).toBeGreaterThan(0);
    expect(aboveTruth).toEqual([]);
    const lastTenth = remainingOfAdmitted.filter((remaining) => remaining < limit / 10).sort((a, b) => a - b);
    expect(lastTenth).toEqual(Array.from({ length: limit / 10 }, (_, i) => i));
    expect(await counterWhenGivenBack(redis, key)).toEqual({ count: 1000, leases: 0, outstanding: 0 });
  });

  test("when three replicas serve a hot key far from its limit, then a leased Remaining is never above the truth and below it by at most a band", async () => {
    const limit = 2000;
    const band = leaseBand(limit);
    const redis = client();
    const replicas = [0, 1, 2].map(() => createRedisLimiter(client(), policy));
    const key = { id: "key_1", workspaceId: `ws_${unique()}`, limit };
    await awayFromMinuteEnd();
    const workers = 30;
    let sent = 0;
    let admitted = 0;
    let leased = 0;
    let waits = 0;
    let widestGap = 0;
    const aboveTruth: string[] = [];
    const worker = async (limiter: RedisLimiter) => {
      while (sent < 1500) {
        sent++;
        const admittedBefore = admitted;
        const result = await hit(limiter, key);
        waits += result.waits;
        expect(result.decision.outcome).toBe("allowed");
        admitted++;
        const { remaining } = result.decision;
        if (remaining > limit - (admittedBefore + 1)) aboveTruth.push(`${remaining} with ${admittedBefore} admitted before it was sent`);
        // Every answer in so far was admitted: at most this many truly remain. Answers decided but not yet in (one per other worker) widen the gap.
        if (result.leased) {
          leased++;
          widestGap = Math.max(widestGap, limit - admitted - remaining);
        }
      }
    };
    await Promise.all(replicas.flatMap((limiter) => Array.from({ length: workers / 3 }, () => worker(limiter))));
    console.log(`3 replicas, limit ${limit}: ${leased} of ${sent} decided from leases, ${waits} waits, widest gap below the truth ${widestGap} (band ${band})`);
    expect(leased).toBeGreaterThan(0);
    expect(aboveTruth).toEqual([]);
    expect(widestGap).toBeLessThanOrEqual(band + workers);
    expect(await counterWhenGivenBack(redis, key)).toEqual({ count: 1500, leases: 0, outstanding: 0 });
  });

  test("when a replica dies holding a lease, then another that reaches the lease's top waits for its end and grace, and the unspent units stay spent", async () => {
    const { holderRedis, redis, other, key } = await holderWithLease(100);
    const grantedAt = performance.now();
    // Gone before it can give the lease back.
    holderRedis.disconnect();
    expect(await counter(redis, key)).toEqual({ count: 20, leases: 1, outstanding: 1 });
    const decisions = [];
    let firstPastTopAt = 0;
    let longestMs = 0;
    for (let i = 0; i < 100; i++) {
      const startedAt = performance.now();
      decisions.push(await other.hit(key));
      longestMs = Math.max(longestMs, performance.now() - startedAt);
      // The lease keeps the count at or below 4 + the band: counts 21 to 54 fit; the 55th waits for the dead holder's lease.
      if (i === 4 + leaseBand(key.limit) - 20) firstPastTopAt = performance.now();
    }
    const admitted = decisions.filter((d) => d.outcome === "allowed");
    expect(admitted.length).toBe(80);
    expect(admitted.map((d) => d.remaining).slice(-10)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    // Redis ran the lease's call before `grantedAt`: it counts as spent LEASE_MS + LEASE_GRACE_MS after that.
    expect(firstPastTopAt - grantedAt).toBeGreaterThanOrEqual(LEASE_MS + LEASE_GRACE_MS - 30);
    expect(longestMs).toBeLessThan(2 * (LEASE_MS + LEASE_GRACE_MS) + 200);
    expect(await counter(redis, key)).toEqual({ count: 120, leases: 0, outstanding: 0 });
  });

  test("when a holder stalls past its lease's grace and gives the lease back before the limit is reached, then the key still admits exactly its limit", async () => {
    const { holderRedis, redis, other, key, first } = await holderWithLease(100);
    // Stalled: what it writes (its give-back at the lease's end) waits in its socket.
    holderRedis.stream.cork();
    expect(await counter(redis, key)).toEqual({ count: 20, leases: 1, outstanding: 1 });
    const decisions = [];
    // Past the lease's top (4 + the band) the other waits for the lease's end and grace, then counts its 16 units as spent.
    for (let i = 0; i < 50; i++) decisions.push(await other.hit(key));
    expect(await counter(redis, key)).toEqual({ count: 70, leases: 0, outstanding: 0 });
    holderRedis.stream.uncork();
    // What it did not spend counts no more.
    expect(await counterOnce(redis, key, (read) => read.count !== 70)).toEqual({ count: 54, leases: 0, outstanding: 0 });
    for (let i = 0; i < 60; i++) decisions.push(await other.hit(key));
    expect([...first, ...decisions].filter((d) => d.outcome === "allowed").length).toBe(key.limit);
    expect(decisions.filter((d) => d.outcome === "allowed").map((d) => d.remaining).slice(-3)).toEqual([2, 1, 0]);
  });

  test("when the window ends with a lease outstanding, then the new window starts from its own requests and the old lease gives nothing back into it", async () => {
    const redis = client();
    const holder = createRedisLimiter(redis, policy);
    const other = createRedisLimiter(client(), policy);
    const key = { id: "key_1", workspaceId: `ws_${unique()}`, limit: 1000 };
    await awayFromMinuteEnd();
    await Promise.all(Array.from({ length: 4 }, () => holder.hit(key)));
    expect((await counter(redis, key)).leases).toBe(1);
    // As if the window had rolled over: the counter holds an earlier window.
    await redis.hset(redisKeys.counter(key.workspaceId, key.id), "w", 0);
    const first = await other.hit(key);
    expect(first.count).toBe(1);
    expect(await counterWhenGivenBack(redis, key)).toEqual({ count: 1, leases: 0, outstanding: 0 });
  });

  test("when Redis fails mid-lease, then the lease is spent until its deadline, and then the replica's memory decides and trusts no cached key", async () => {
    const failing = client();
    const gate = createRedisGate({ timeoutMs: 250 });
    const limiter = createResilientLimiter({
      primary: createRedisLimiter(failing, policy, LONG_LEASE),
      fallback: createMemoryLimiter(policy, null),
      mode: "open",
      gate,
    });
    const key = { id: "key_1", workspaceId: `ws_${unique()}`, limit: 1000 };
    await awayFromMinuteEnd();
    await Promise.all(Array.from({ length: 4 }, () => limiter.hit(key)));
    failing.disconnect();
    const fromLease = await limiter.hit(key);
    expect(fromLease.authEpoch).not.toBeNull();
    expect(gate.down).toBe(false);
    expect(gate.stats.leaseDecisions).toBe(1);
    await Bun.sleep(LONG_LEASE.leaseMs + 10);
    const fromMemory = await limiter.hit(key);
    expect(gate.down).toBe(true);
    expect(fromMemory.outcome).toBe("allowed");
    expect(fromMemory.authEpoch).toBeNull();
  });
});

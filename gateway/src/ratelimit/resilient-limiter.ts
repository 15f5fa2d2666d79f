import { ApiError, sweepWhenDoubled } from "@ws/shared";
import { WINDOW_SECONDS, windowOf, type LimitedKey, type RateLimitDecision, type RateLimiter } from "./limiter";
import type { LimiterStats } from "./limiter-stats";
import type { MemoryLimiter } from "./memory-limiter";
import type { RedisGate } from "./redis-gate";
import { isLeaseWait, untilDecided, type CountedElsewhere, type LeaseWait, type RedisLimiter } from "./redis-limiter";

export type FailureMode = "open" | "closed";

const windowOfDecision = (decision: RateLimitDecision) => decision.resetAt / WINDOW_SECONDS - 1;

/**
 * Redis first, through the gate. While the gate says Redis is down, open mode
 * limits per replica in memory (and trusts no cached key), closed mode refuses
 * with 503. The memory limiter counts on from the last count this replica saw
 * in Redis for the key, and what it admitted is added to Redis with the key's
 * next request once Redis answers again, so an outage never resets a key's
 * window (gateway/src/ratelimit/README.md gives the bound that remains).
 */
export function createResilientLimiter(options: {
  primary: RedisLimiter;
  fallback: MemoryLimiter;
  mode: FailureMode;
  gate: RedisGate;
}): RateLimiter & { stats: LimiterStats } {
  const { gate, fallback, primary } = options;
  const stats = gate.stats;
  /** Requests counted in memory that Redis has not been told of yet, per key. */
  const unshared = new Map<string, CountedElsewhere>();
  // Redis adds counts of its current window only: those of windows ended a minute ago (by this clock,
  // which may run a little ahead of Redis's) are forgotten, the others kept.
  const forgetPastWindows = sweepWhenDoubled(
    () => unshared.size,
    () => {
      const window = windowOf(Date.now() / 1000);
      for (const [keyId, counted] of unshared) if (counted.window < window - 1) unshared.delete(keyId);
    },
  );

  const share = (keyId: string, counted: CountedElsewhere) => {
    const pending = unshared.get(keyId);
    if (pending && pending.window === counted.window) pending.count += counted.count;
    else if (!pending || pending.window < counted.window) {
      forgetPastWindows();
      unshared.set(keyId, { ...counted });
    }
  };

  const withoutRedis = async (key: LimitedKey): Promise<RateLimitDecision> => {
    if (options.mode === "closed") {
      stats.rejectedRequests += 1;
      throw new ApiError("service_unavailable", "Rate limiting is unavailable. Try again later.", { headers: { "retry-after": "1" } });
    }
    stats.fallbackDecisions += 1;
    const decision = await fallback.hit(key);
    share(key.id, { window: windowOfDecision(decision), count: 1 });
    return decision;
  };

  const throughRedis = async (key: LimitedKey, force: boolean): Promise<RateLimitDecision | LeaseWait> => {
    const carried = unshared.get(key.id);
    unshared.delete(key.id);
    let decision: RateLimitDecision | LeaseWait;
    try {
      decision = await primary.attempt(key, carried, force);
    } catch (error) {
      if (carried) share(key.id, carried);
      throw error;
    }
    if (isLeaseWait(decision)) {
      stats.leaseWaits += 1;
      if (carried) share(key.id, carried);
      return decision;
    }
    fallback.continueFrom(key.id, windowOfDecision(decision), decision.count);
    return decision;
  };

  return {
    // Each round trip goes through the gate on its own: a wait for other replicas' leases is not Redis being slow.
    hit: async (key) => {
      const leased = primary.leased(key);
      if (leased) {
        stats.leaseDecisions += 1;
        return leased;
      }
      return untilDecided((force) => gate.run(() => throughRedis(key, force), () => withoutRedis(key)));
    },
    stats,
    async close() {
      await primary.close();
      await fallback.close();
    },
  };
}

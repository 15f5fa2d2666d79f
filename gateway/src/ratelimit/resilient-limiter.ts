import { ApiError, type Logger } from "@ws/shared";
import type { LimitedKey, RateLimitDecision, RateLimiter } from "./limiter";
import { createLimiterStats, type LimiterStats } from "./limiter-stats";

export type FailureMode = "open" | "closed";

/**
 * Redis first. While Redis fails (ioredis fails at once while disconnected,
 * and after its command timeout when Redis stalls), open mode limits per
 * replica in memory (and trusts no cached key), closed mode refuses with 503.
 * During an outage one request at a time still probes Redis, so a stalled Redis
 * costs one timeout per probe rather than per request, and the first probe that
 * succeeds puts every request back on Redis. Logs once per outage.
 */
export function createResilientLimiter(options: {
  primary: RateLimiter;
  fallback: RateLimiter;
  mode: FailureMode;
  logger: Logger;
  stats?: LimiterStats;
}): RateLimiter & { stats: LimiterStats } {
  const stats = options.stats ?? createLimiterStats();
  const setDegraded = (value: boolean, error?: unknown) => {
    if (stats.degraded === value) return;
    stats.degraded = value;
    if (value) {
      stats.outages += 1;
      options.logger.error("redis unreachable: rate limiting falls back", { mode: options.mode, error: String(error) });
    } else {
      options.logger.info("redis reachable again: rate limiting through redis");
    }
  };
  let probing = false;
  const withoutRedis = (key: LimitedKey): Promise<RateLimitDecision> => {
    if (options.mode === "closed") {
      stats.rejectedRequests += 1;
      throw new ApiError("service_unavailable", "Rate limiting is unavailable. Try again later.", { headers: { "retry-after": "1" } });
    }
    stats.fallbackDecisions += 1;
    return options.fallback.hit(key);
  };
  return {
    async hit(key: LimitedKey): Promise<RateLimitDecision> {
      if (stats.degraded && probing) return withoutRedis(key);
      const probe = stats.degraded;
      if (probe) probing = true;
      let decision: RateLimitDecision;
      try {
        decision = await options.primary.hit(key);
      } catch (error) {
        stats.redisErrors += 1;
        setDegraded(true, error);
        return withoutRedis(key);
      } finally {
        if (probe) probing = false;
      }
      setDegraded(false);
      return decision;
    },
    stats,
    async close() {
      await options.primary.close();
      await options.fallback.close();
    },
  };
}

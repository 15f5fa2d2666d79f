import { ApiError, type Logger } from "@ws/shared";
import type { LimitedKey, RateLimitDecision, RateLimiter } from "./limiter";

export type FailureMode = "open" | "closed";

/**
 * Redis first. While Redis fails, open mode limits per replica in memory (and
 * trusts no cached key), closed mode refuses with 503. Logs once per outage.
 */
export function createResilientLimiter(options: {
  primary: RateLimiter;
  fallback: RateLimiter;
  mode: FailureMode;
  logger: Logger;
  onStateChange?: (degraded: boolean) => void;
}): RateLimiter & { degraded(): boolean } {
  let degraded = false;
  const setDegraded = (value: boolean, error?: unknown) => {
    if (degraded === value) return;
    degraded = value;
    options.onStateChange?.(value);
    if (value) options.logger.error("redis unreachable: rate limiting falls back", { mode: options.mode, error: String(error) });
    else options.logger.info("redis reachable again: rate limiting through redis");
  };
  return {
    async hit(key: LimitedKey): Promise<RateLimitDecision> {
      try {
        const decision = await options.primary.hit(key);
        setDegraded(false);
        return decision;
      } catch (error) {
        setDegraded(true, error);
        if (options.mode === "closed") throw new ApiError("service_unavailable", "Rate limiting is unavailable. Try again later.", { headers: { "retry-after": "1" } });
        return options.fallback.hit(key);
      }
    },
    degraded: () => degraded,
    async close() {
      await options.primary.close();
      await options.fallback.close();
    },
  };
}

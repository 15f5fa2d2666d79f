import { ApiError } from "@ws/shared";
import { WINDOW_SECONDS } from "./limiter";

/**
 * Contract 7: failed authentication is limited per client address, so keys
 * cannot be guessed at speed. Past the limit a failure answers 429 instead of 401.
 */
export interface AuthFailureLimiter {
  recordFailure(clientAddress: string): Promise<void>;
}

export function createMemoryAuthFailureLimiter(limitPerMinute: number): AuthFailureLimiter {
  const failures = new Map<string, { window: number; count: number }>();
  return {
    async recordFailure(clientAddress) {
      const now = Date.now() / 1000;
      const window = Math.floor(now / WINDOW_SECONDS);
      let entry = failures.get(clientAddress);
      if (!entry || entry.window !== window) {
        if (failures.size > 100_000) failures.clear();
        entry = { window, count: 0 };
        failures.set(clientAddress, entry);
      }
      entry.count += 1;
      if (entry.count > limitPerMinute) {
        const retryAfter = Math.max(1, (window + 1) * WINDOW_SECONDS - Math.floor(now));
        throw new ApiError("rate_limit_exceeded", `Too many failed authentication attempts from this address. Retry in ${retryAfter} s.`, {
          headers: { "retry-after": String(retryAfter) },
        });
      }
    },
  };
}

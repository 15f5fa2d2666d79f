import type { CredentialEpochs } from "../auth/credential-epochs";
import { decide, suspensionThreshold, WINDOW_SECONDS, type LimitedKey, type RateLimitDecision, type RateLimiter, type SuspensionPolicy } from "./limiter";

const MAX_TRACKED_KEYS = 100_000;

/**
 * The in-process limiter: the embedded default, and the per-replica fallback
 * while Redis is unreachable (then without epochs, so no cached key is trusted).
 * Same rules as the Redis script: clock-minute windows, suspension on crossing
 * the threshold once per window.
 */
export function createMemoryLimiter(policy: SuspensionPolicy, epochs: CredentialEpochs | null, clock: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { window: number; count: number; suspendedInWindow: boolean }>();
  const suspendedUntil = new Map<string, number>();
  return {
    async hit(key: LimitedKey): Promise<RateLimitDecision> {
      const now = clock() / 1000;
      const window = Math.floor(now / WINDOW_SECONDS);
      let entry = windows.get(key.id);
      if (!entry || entry.window !== window) {
        if (windows.size >= MAX_TRACKED_KEYS) windows.clear();
        entry = { window, count: 0, suspendedInWindow: false };
        windows.set(key.id, entry);
      }
      // This request's own count, taken before any await lets another request add to it.
      const count = ++entry.count;
      let suspendedFor = (suspendedUntil.get(key.id) ?? 0) - now;
      if (suspendedFor <= 0) {
        suspendedUntil.delete(key.id);
        suspendedFor = 0;
        if (!entry.suspendedInWindow && count > suspensionThreshold(key.limit, policy)) {
          entry.suspendedInWindow = true;
          if (suspendedUntil.size >= MAX_TRACKED_KEYS) suspendedUntil.clear();
          suspendedUntil.set(key.id, now + policy.suspendSeconds);
          suspendedFor = policy.suspendSeconds;
        }
      }
      const epoch = epochs ? await epochs.current(key.workspaceId) : null;
      return decide(count, key.limit, now, suspendedFor, epoch);
    },
    async close() {},
  };
}

import type { CredentialEpochs } from "../auth/credential-epochs";
import { sweepWhenDoubled } from "@ws/shared";
import { decide, suspensionThreshold, type LimitedKey, type RateLimitDecision, type RateLimiter, type SuspensionPolicy } from "./limiter";
import { minuteWindows } from "./minute-windows";

/** The in-process limiter, able to take over a key's count from Redis. */
export interface MemoryLimiter extends RateLimiter {
  /** The key's count in that window was at least `count` (as Redis last said): count on from there. */
  continueFrom(keyId: string, window: number, count: number): void;
}

/**
 * The in-process limiter: the embedded default, and the per-replica fallback
 * while Redis is unreachable (then without epochs, so no cached key is trusted).
 * Same rules as the Redis script: clock-minute windows, suspension on crossing
 * the threshold once per window (by this request: a count already past it
 * because the limit was lowered meanwhile is not a crossing).
 */
export function createMemoryLimiter(policy: SuspensionPolicy, epochs: CredentialEpochs | null, clock: () => number = Date.now): MemoryLimiter {
  const windows = minuteWindows(() => ({ suspendedInWindow: false }));
  const suspendedUntil = new Map<string, number>();
  const forgetEndedSuspensions = sweepWhenDoubled(
    () => suspendedUntil.size,
    () => {
      const now = clock() / 1000;
      for (const [id, until] of suspendedUntil) if (until <= now) suspendedUntil.delete(id);
    },
  );
  return {
    async hit(key: LimitedKey): Promise<RateLimitDecision> {
      const now = clock() / 1000;
      const entry = windows.current(key.id, now);
      // This request's own count, taken before any await lets another request add to it.
      const count = ++entry.count;
      let suspendedFor = (suspendedUntil.get(key.id) ?? 0) - now;
      if (suspendedFor <= 0) {
        suspendedUntil.delete(key.id);
        suspendedFor = 0;
        const threshold = suspensionThreshold(key.limit, policy);
        // A shared count (past the ids the window can hold) is not this key's: it refuses, it does not suspend.
        if (!entry.shared && !entry.suspendedInWindow && count > threshold && count - 1 <= threshold) {
          entry.suspendedInWindow = true;
          forgetEndedSuspensions();
          suspendedUntil.set(key.id, now + policy.suspendSeconds);
          suspendedFor = policy.suspendSeconds;
        }
      }
      const epoch = epochs ? await epochs.current(key.workspaceId) : null;
      return decide(count, key.limit, now, suspendedFor, epoch);
    },
    continueFrom(keyId, window, count) {
      windows.raise(keyId, window, count);
    },
    async close() {},
  };
}

import type { CredentialEpochs } from "../auth/credential-epochs";
import { decide, WINDOW_SECONDS, type LimitedKey, type RateLimitDecision, type RateLimiter, type SuspensionPolicy } from "./limiter";

/**
 * The in-process limiter: the embedded default, and the per-replica fallback
 * while Redis is unreachable (then without epochs, so no cached key is trusted).
 */
export function createMemoryLimiter(policy: SuspensionPolicy, epochs: CredentialEpochs | null): RateLimiter {
  const windows = new Map<string, { window: number; count: number }>();
  const suspendedUntil = new Map<string, number>();
  return {
    async hit(key: LimitedKey): Promise<RateLimitDecision> {
      const now = Date.now() / 1000;
      const window = Math.floor(now / WINDOW_SECONDS);
      let entry = windows.get(key.id);
      if (!entry || entry.window !== window) {
        if (windows.size > 100_000) windows.clear();
        entry = { window, count: 0 };
        windows.set(key.id, entry);
      }
      entry.count += 1;
      let suspendedFor = Math.ceil((suspendedUntil.get(key.id) ?? 0) - now);
      if (suspendedFor <= 0 && entry.count > key.limit * policy.suspendAfterMultiple) {
        suspendedUntil.set(key.id, now + policy.suspendSeconds);
        suspendedFor = policy.suspendSeconds;
      }
      const epoch = epochs ? await epochs.current(key.workspaceId) : null;
      return decide(entry.count, key.limit, now, Math.max(0, suspendedFor), epoch);
    },
    async close() {},
  };
}

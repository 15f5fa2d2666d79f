export type RateLimitOutcome = "allowed" | "limited" | "suspended";

export interface RateLimitDecision {
  outcome: RateLimitOutcome;
  limit: number;
  /** Requests counted in the key's window, this one included. */
  count: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  resetAt: number;
  /** Seconds to wait, when the request was not allowed (at least 1). */
  retryAfter: number;
  /**
   * The workspace's credential epoch, read in the same round trip. A cached key
   * is trusted only while this equals the epoch it was loaded with; null means
   * the limiter could not tell (cache must not be used).
   */
  authEpoch: string | null;
}

export interface LimitedKey {
  id: string;
  workspaceId: string;
  limit: number;
}

export interface RateLimiter {
  hit(key: LimitedKey): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

export interface SuspensionPolicy {
  /** Requests in one window past which a key is suspended, as a multiple of its limit (default 2). */
  suspendAfterMultiple: number;
  suspendSeconds: number;
}

export const WINDOW_SECONDS = 60;

/** The number of the clock-minute window holding `nowSeconds`. */
export function windowOf(nowSeconds: number): number {
  return Math.floor(nowSeconds / WINDOW_SECONDS);
}

/** Unix seconds at which the clock-minute window holding `nowSeconds` ends. */
export function windowEnd(nowSeconds: number): number {
  return (windowOf(nowSeconds) + 1) * WINDOW_SECONDS;
}

/**
 * How long a replica may act on what one Redis call told it, counted from the
 * moment it sent the call: a lease of a key's quota is spent, and the
 * credential epoch read with it trusted, for at most this long. A management
 * change answers only this long after Redis holds its new epoch, so whatever a
 * replica still trusts when the answer is out was read after the change.
 * Short, because a request at the end of a band of leases waits up to this long
 * for other replicas' leases, and every such change answers this much later;
 * at 25 ms rather than 50 a hot key's requests are still decided from leases
 * two times in three (gateway/src/ratelimit/README.md, "What it costs").
 */
export const LEASE_MS = 25;

/** After its end, a lease its holder has not given back counts as spent: the holder died or lost Redis. */
export const LEASE_GRACE_MS = 250;

/** The most a replica asks for in one lease. */
export const MAX_LEASE = 1024;

/**
 * Leases keep a key's count at or below this: past it, every request is
 * counted one by one, so at least a tenth of the limit is left for exact
 * counting and an exact `X-RateLimit-Remaining`.
 */
export function leaseCeiling(limit: number): number {
  return Math.floor((limit * 9) / 10);
}

/** The least band of a key's count (below). */
export const MIN_LEASE_BAND = 50;

/**
 * How much of a key's count its leases may take before they must all be back:
 * a tenth of the limit, at least MIN_LEASE_BAND. A key's first lease sets its
 * top, the count then plus the band, never past the ceiling; a leased
 * `X-RateLimit-Remaining` is below the truth by at most this. The narrower the
 * band, the closer it is, and the more often a hot key's requests wait for the
 * leases to come back. (The script in redis-limiter.ts computes the same in Lua.)
 */
export function leaseBand(limit: number): number {
  return Math.max(limit - leaseCeiling(limit), MIN_LEASE_BAND);
}

/** The count past which a key is suspended; crossed at most once per window. */
export function suspensionThreshold(limit: number, policy: SuspensionPolicy): number {
  return limit * policy.suspendAfterMultiple;
}

/**
 * The decision a request counted under one limit gets under another: the key's
 * limit changed (the management API answered) between the cached key the count
 * used and the key read again in the same request. The count stands; a
 * suspension already decided stays (under the new limit's name).
 */
export function underLimit(decision: RateLimitDecision, limit: number, nowSeconds = Date.now() / 1000): RateLimitDecision {
  if (decision.limit === limit) return decision;
  if (decision.outcome === "suspended") return { ...decision, limit };
  if (decision.count > limit) {
    return { ...decision, outcome: "limited", limit, remaining: 0, retryAfter: Math.max(1, Math.ceil(decision.resetAt - nowSeconds)) };
  }
  return { ...decision, outcome: "allowed", limit, remaining: limit - decision.count, retryAfter: 0 };
}

/**
 * Shared by every limiter so Redis and memory decide identically. `count`
 * includes this request; `suspendedForSeconds` is what is left of a suspension.
 */
export function decide(count: number, limit: number, nowSeconds: number, suspendedForSeconds: number, authEpoch: string | null): RateLimitDecision {
  const resetAt = windowEnd(nowSeconds);
  const remaining = Math.max(0, limit - count);
  if (suspendedForSeconds > 0) {
    return { outcome: "suspended", limit, count, remaining: 0, resetAt, retryAfter: Math.max(1, Math.ceil(suspendedForSeconds)), authEpoch };
  }
  if (count > limit) return { outcome: "limited", limit, count, remaining: 0, resetAt, retryAfter: Math.max(1, Math.ceil(resetAt - nowSeconds)), authEpoch };
  return { outcome: "allowed", limit, count, remaining, resetAt, retryAfter: 0, authEpoch };
}

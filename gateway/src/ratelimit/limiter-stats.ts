/**
 * What the limiters tell metrics about Redis: one object per gateway process,
 * read by whoever exports metrics (counters only rise; `degraded` is a gauge).
 */
export interface LimiterStats {
  /** True while the Redis gate considers Redis down (redis-gate.ts). */
  degraded: boolean;
  /** Times Redis went from reachable to unreachable. */
  outages: number;
  /** Redis calls that failed, of every caller of the gate. */
  redisErrors: number;
  /** Decisions taken by the in-memory fallback in open mode. */
  fallbackDecisions: number;
  /** Requests refused with 503 in closed mode. */
  rejectedRequests: number;
  /** Decisions taken from a lease of a key's quota, with no Redis round trip. */
  leaseDecisions: number;
  /** Times a request was told to wait for other replicas' leases of its key (where a band ends, or near the limit). */
  leaseWaits: number;
}

export function createLimiterStats(): LimiterStats {
  return { degraded: false, outages: 0, redisErrors: 0, fallbackDecisions: 0, rejectedRequests: 0, leaseDecisions: 0, leaseWaits: 0 };
}

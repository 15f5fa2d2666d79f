import { httpMetrics, MetricsRegistry, readinessMetrics, registerProcessMetrics, type PoolStats, type ServiceName } from "@ws/shared";
import type { AdminAuthFailure } from "../admin/admin-auth";
import type { UpstreamErrorKind } from "../proxy/forward";
import type { LimiterStats } from "../ratelimit/limiter-stats";

/** The limiter's modes, one series each, the current one at 1. */
const LIMITER_MODES = ["redis", "fallback", "refusing", "memory"] as const;
export type LimiterMode = (typeof LIMITER_MODES)[number];

/** What ioredis tells of its connections: a client, or a cluster of them. */
export interface RedisConnections {
  status: string;
  nodes?: (role?: "all") => { status: string }[];
}

const OPEN_REDIS_STATES = new Set(["connect", "ready"]);

function openRedisConnections(redis: RedisConnections): number {
  const clients = typeof redis.nodes === "function" ? redis.nodes("all") : [redis];
  return clients.filter((client) => OPEN_REDIS_STATES.has(client.status)).length;
}

export interface GatewayMetricsSources {
  limiterStats: LimiterStats;
  /** What the limiter does while Redis is unreachable; absent Redis it counts in memory by design. */
  failureMode: "open" | "closed";
  /** The process's Redis clients (the request path's and the other calls'). */
  redis?: readonly RedisConnections[] | null;
  database?: PoolStats;
  /** Request-body bytes charged to the budget of bodies in transit. */
  bytesInTransit?: () => number;
}

/**
 * What the gateway exports at `GET /metrics` on its internal port: public API
 * requests by operation, rate-limit decisions, upstream failures, the state
 * of Redis as the limiters saw it, and the process metrics.
 */
export function createGatewayMetrics(sources: GatewayMetricsSources) {
  const { limiterStats, failureMode, redis } = sources;
  const registry = new MetricsRegistry();
  const http = httpMetrics(registry);
  const decisions = registry.counter("ratelimit_decisions_total", "Rate-limit decisions on authenticated requests, by outcome.", ["outcome"]);
  const upstreamErrors = registry.counter("upstream_errors_total", "Proxied requests a service did not answer, by service and kind.", ["service", "kind"]);
  const keyLookups = registry.counter("auth_key_lookups_total", "Presented API keys looked up in the database (not cached on this replica).");
  const adminAuthFailures = registry.counter(
    "admin_auth_failures_total",
    "Management API requests refused for their admin token, by answer: missing_token and invalid_token (401), throttled (429, the address is past its failure limit).",
    ["outcome"],
  );
  registry.collect("ratelimit_redis_degraded", "1 while Redis is unreachable and the limiter runs on its fallback (or refuses, in closed mode).", "gauge", () => (limiterStats.degraded ? 1 : 0));
  registry.collect("ratelimit_redis_outages_total", "Times Redis went from reachable to unreachable.", "counter", () => limiterStats.outages);
  registry.collect("ratelimit_redis_errors_total", "Redis calls of the limiters that failed.", "counter", () => limiterStats.redisErrors);
  registry.collect("ratelimit_fallback_decisions_total", "Decisions taken by the in-memory fallback limiter while Redis was unreachable (open mode).", "counter", () => limiterStats.fallbackDecisions);
  registry.collect("ratelimit_lease_decisions_total", "Decisions taken from a lease of a key's quota on this replica, with no Redis round trip.", "counter", () => limiterStats.leaseDecisions);
  registry.collect("ratelimit_lease_waits_total", "Times a request waited for other replicas' leases of its key to be given back (where a band of the key's quota ends, and near its limit).", "counter", () => limiterStats.leaseWaits);
  registry.collect("ratelimit_rejected_requests_total", "Requests refused with 503 because Redis was unreachable (closed mode).", "counter", () => limiterStats.rejectedRequests);
  const mode = (): LimiterMode => {
    if (!redis) return "memory";
    if (!limiterStats.degraded) return "redis";
    return failureMode === "open" ? "fallback" : "refusing";
  };
  registry.collectSeries(
    "ratelimit_limiter_mode",
    "How the rate limit is counted now, one series per mode at 1 for the current one: redis (shared, exact), fallback (Redis unreachable, per replica), refusing (Redis unreachable, closed mode: 503), memory (no Redis configured).",
    "gauge",
    ["mode"],
    () => {
      const current = mode();
      return LIMITER_MODES.map((name) => ({ labels: { mode: name }, value: name === current ? 1 : 0 }));
    },
  );
  registry.collect("redis_connections_open", "Connections to Redis (each node of a cluster) that are open; 0 without Redis.", "gauge", () => (redis ? redis.reduce((open, client) => open + openRedisConnections(client), 0) : 0));
  const processMetrics = registerProcessMetrics(registry, { database: sources.database });
  if (sources.bytesInTransit) {
    const bytesInTransit = sources.bytesInTransit;
    registry.collect("request_body_bytes_in_transit", "Request-body bytes charged to the budget of bodies in transit (MAX_INFLIGHT_BODY_BYTES).", "gauge", () => bytesInTransit());
  }
  return {
    registry,
    /** Told every /readyz answer. */
    onReadiness: readinessMetrics(registry),
    observeRequest(event: { route: string; method: string; status: number; seconds: number; outcome?: string }) {
      http.record(event);
      if (event.outcome) decisions.inc({ outcome: event.outcome });
    },
    observeUpstreamError(service: ServiceName, kind: UpstreamErrorKind) {
      upstreamErrors.inc({ service, kind });
    },
    stop: processMetrics.stop,
    observeKeyLookup() {
      keyLookups.inc();
    },
    observeAdminAuthFailure(outcome: AdminAuthFailure) {
      adminAuthFailures.inc({ outcome });
    },
  };
}
export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;

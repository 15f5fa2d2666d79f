import { httpMetrics, MetricsRegistry, type ServiceName } from "@ws/shared";
import type { UpstreamErrorKind } from "../proxy/forward";
import type { LimiterStats } from "../ratelimit/limiter-stats";


/**
 * What the gateway exports at `GET /metrics` on its internal port: public API
 * requests by operation, rate-limit decisions, upstream failures and the state
 * of Redis as the limiters saw it.
 */
export function createGatewayMetrics(limiterStats: LimiterStats, bodies?: { bytesInTransit(): number }) {
  const registry = new MetricsRegistry();
  const http = httpMetrics(registry);
  const decisions = registry.counter("ratelimit_decisions_total", "Rate-limit decisions on authenticated requests, by outcome.", ["outcome"]);
  const upstreamErrors = registry.counter("upstream_errors_total", "Proxied requests a service did not answer, by service and kind.", ["service", "kind"]);
  registry.collect("ratelimit_redis_degraded", "1 while Redis is unreachable and the limiter runs on its fallback (or refuses, in closed mode).", "gauge", () => (limiterStats.degraded ? 1 : 0));
  registry.collect("ratelimit_redis_outages_total", "Times Redis went from reachable to unreachable.", "counter", () => limiterStats.outages);
  registry.collect("ratelimit_redis_errors_total", "Redis calls of the limiters that failed.", "counter", () => limiterStats.redisErrors);
  registry.collect("ratelimit_fallback_decisions_total", "Decisions taken by the in-memory fallback limiter while Redis was unreachable (open mode).", "counter", () => limiterStats.fallbackDecisions);
  registry.collect("ratelimit_rejected_requests_total", "Requests refused with 503 because Redis was unreachable (closed mode).", "counter", () => limiterStats.rejectedRequests);
  if (bodies) {
    registry.collect("request_body_bytes_in_transit", "Request-body bytes charged to the budget of bodies in transit (MAX_INFLIGHT_BODY_BYTES).", "gauge", () => bodies.bytesInTransit());
  }
  return {
    registry,
    observeRequest(event: { route: string; method: string; status: number; seconds: number; outcome?: string }) {
      http.record(event);
      if (event.outcome) decisions.inc({ outcome: event.outcome });
    },
    observeUpstreamError(service: ServiceName, kind: UpstreamErrorKind) {
      upstreamErrors.inc({ service, kind });
    },
  };
}
export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;

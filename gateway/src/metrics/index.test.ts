import { describe, expect, test } from "bun:test";
import { parsePrometheusText, sampleValue } from "../../../tests/e2e/operations/prometheus-format";
import { bunRuntime } from "@ws/shared/runtime/bun";
import { forward, type UpstreamErrorKind } from "../proxy/forward";
import { createLimiterStats } from "../ratelimit/limiter-stats";
import { createGatewayMetrics } from "./index";

const scrape = (metrics: ReturnType<typeof createGatewayMetrics>) => parsePrometheusText(metrics.registry.expose());

describe("gateway metrics", () => {
  test("when requests, decisions and upstream errors are observed, then each is exported under its labels", () => {
    const metrics = createGatewayMetrics({ limiterStats: createLimiterStats(), failureMode: "open" });
    metrics.observeRequest({ route: "listPages", method: "GET", status: 200, seconds: 0.02, outcome: "allowed" });
    metrics.observeRequest({ route: "listPages", method: "GET", status: 429, seconds: 0.001, outcome: "limited" });
    metrics.observeRequest({ route: "unmatched", method: "GET", status: 404, seconds: 0.001 });
    metrics.observeUpstreamError("calendar", "timeout");
    const families = scrape(metrics);
    expect(sampleValue(families, "http_requests_total", { route: "listPages", method: "GET", status: "429" })).toBe(1);
    expect(sampleValue(families, "ratelimit_decisions_total", { outcome: "allowed" })).toBe(1);
    expect(sampleValue(families, "ratelimit_decisions_total", { outcome: "limited" })).toBe(1);
    expect(sampleValue(families, "upstream_errors_total", { service: "calendar", kind: "timeout" })).toBe(1);
    expect(sampleValue(families, "http_request_duration_seconds_count", { route: "listPages" })).toBe(2);
    metrics.stop();
  });

  test("when the limiter's Redis state changes, then the gauge and counters follow at scrape time", () => {
    const stats = createLimiterStats();
    const metrics = createGatewayMetrics({ limiterStats: stats, failureMode: "open", redis: [{ status: "ready" }] });
    expect(sampleValue(scrape(metrics), "ratelimit_redis_degraded")).toBe(0);
    stats.degraded = true;
    stats.outages = 1;
    stats.fallbackDecisions = 7;
    stats.leaseDecisions = 40;
    stats.leaseWaits = 2;
    const families = scrape(metrics);
    expect(sampleValue(families, "ratelimit_redis_degraded")).toBe(1);
    expect(sampleValue(families, "ratelimit_redis_outages_total")).toBe(1);
    expect(sampleValue(families, "ratelimit_fallback_decisions_total")).toBe(7);
    expect(sampleValue(families, "ratelimit_lease_decisions_total")).toBe(40);
    expect(sampleValue(families, "ratelimit_lease_waits_total")).toBe(2);
    metrics.stop();
  });

  test("when Redis becomes unreachable, then the limiter's mode moves from redis to fallback (open) or refusing (closed)", () => {
    const modes = (metrics: ReturnType<typeof createGatewayMetrics>) =>
      Object.fromEntries(scrape(metrics).get("ratelimit_limiter_mode")!.samples.map((sample) => [sample.labels.mode, sample.value]));
    const stats = createLimiterStats();
    const open = createGatewayMetrics({ limiterStats: stats, failureMode: "open", redis: [{ status: "ready" }] });
    const closed = createGatewayMetrics({ limiterStats: stats, failureMode: "closed", redis: [{ status: "ready" }] });
    expect(modes(open)).toEqual({ redis: 1, fallback: 0, refusing: 0, memory: 0 });
    stats.degraded = true;
    expect(modes(open)).toEqual({ redis: 0, fallback: 1, refusing: 0, memory: 0 });
    expect(modes(closed)).toEqual({ redis: 0, fallback: 0, refusing: 1, memory: 0 });
    const withoutRedis = createGatewayMetrics({ limiterStats: createLimiterStats(), failureMode: "open" });
    expect(modes(withoutRedis)).toEqual({ redis: 0, fallback: 0, refusing: 0, memory: 1 });
    expect(sampleValue(scrape(withoutRedis), "redis_connections_open")).toBe(0);
    for (const metrics of [open, closed, withoutRedis]) metrics.stop();
  });

  test("when the client is a cluster, then every node with an open connection counts", () => {
    const nodes = [{ status: "ready" }, { status: "connect" }, { status: "reconnecting" }, { status: "end" }];
    const metrics = createGatewayMetrics({ limiterStats: createLimiterStats(), failureMode: "open", redis: [{ status: "ready", nodes: () => nodes }] });
    expect(sampleValue(scrape(metrics), "redis_connections_open")).toBe(2);
    metrics.stop();
  });
});

describe("authentication metrics", () => {
  test("when keys are looked up and admin tokens refused, then each is counted, the refusals by answer", () => {
    const metrics = createGatewayMetrics({ limiterStats: createLimiterStats(), failureMode: "open" });
    metrics.observeKeyLookup();
    metrics.observeKeyLookup();
    metrics.observeAdminAuthFailure("invalid_token");
    metrics.observeAdminAuthFailure("throttled");
    metrics.observeAdminAuthFailure("throttled");
    const families = scrape(metrics);
    expect(sampleValue(families, "auth_key_lookups_total")).toBe(2);
    expect(sampleValue(families, "admin_auth_failures_total", { outcome: "invalid_token" })).toBe(1);
    expect(sampleValue(families, "admin_auth_failures_total", { outcome: "throttled" })).toBe(2);
  });
});

describe("forward", () => {
  const attempt = async (upstream: string, timeoutMs: number) => {
    const kinds: UpstreamErrorKind[] = [];
    const request = { send: bunRuntime.sendUpstream, method: "GET", pathAndQuery: "/x", headers: new Headers(), body: null, principalToken: "p", requestId: "r", timeoutMs };
    await expect(forward({ ...request, upstream, onError: (kind) => kinds.push(kind) })).rejects.toThrow();
    return kinds;
  };

  test("when the service is not listening, then the error is reported as unreachable", async () => {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const url = `http://127.0.0.1:${server.port}`;
    server.stop(true);
    expect(await attempt(url, 1000)).toEqual(["unreachable"]);
  });

  test("when the service answers too late, then the error is reported as a timeout", async () => {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Bun.sleep(500).then(() => new Response("late")) });
    try {
      expect(await attempt(`http://127.0.0.1:${server.port}`, 50)).toEqual(["timeout"]);
    } finally {
      server.stop(true);
    }
  });
});

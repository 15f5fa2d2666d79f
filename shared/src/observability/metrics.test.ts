import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { parsePrometheusText, sampleValue } from "../../../tests/e2e/operations/prometheus-format";
import { ApiError } from "../errors/api-error";
import { errorHandler } from "../http/error-handler";
import { healthRoutes } from "../http/health";
import { createLogger } from "./logger";
import { httpMetrics, MetricsRegistry, PROMETHEUS_CONTENT_TYPE } from "./metrics";
import { countRequests, metricsRoute, routeLabels } from "./request-metrics";

describe("MetricsRegistry", () => {
  test("when counters, values read at scrape time and histograms are recorded, then the exposition is valid with cumulative buckets", () => {
    const registry = new MetricsRegistry();
    const counter = registry.counter("jobs_total", "Jobs done.\nSecond line \\ here.", ["kind"]);
    let depth = 0;
    registry.collect("queue_depth", "Jobs waiting.", "gauge", () => depth);
    const histogram = registry.histogram("job_seconds", "Job time.", ["kind"], [0.1, 1]);
    registry.collect("redis_degraded", "1 when degraded.", "gauge", () => 1);
    counter.inc({ kind: 'quo"te\\back\nline' });
    counter.inc({ kind: "plain" }, 2);
    depth = 7;
    for (const value of [0.05, 0.1, 0.5, 3]) histogram.observe({ kind: "a" }, value);
    const text = registry.expose();
    expect(text).toContain('jobs_total{kind="quo\\"te\\\\back\\nline"} 1');
    expect(text).toContain("# HELP jobs_total Jobs done.\\nSecond line \\\\ here.");
    const families = parsePrometheusText(text);
    expect(sampleValue(families, "jobs_total", { kind: 'quo"te\\back\nline' })).toBe(1);
    expect(sampleValue(families, "jobs_total", { kind: "plain" })).toBe(2);
    expect(sampleValue(families, "queue_depth")).toBe(7);
    expect(sampleValue(families, "redis_degraded")).toBe(1);
    expect(sampleValue(families, "job_seconds_bucket", { kind: "a", le: "0.1" })).toBe(2);
    expect(sampleValue(families, "job_seconds_bucket", { kind: "a", le: "1" })).toBe(3);
    expect(sampleValue(families, "job_seconds_bucket", { kind: "a", le: "+Inf" })).toBe(4);
    expect(sampleValue(families, "job_seconds_count", { kind: "a" })).toBe(4);
    expect(sampleValue(families, "job_seconds_sum", { kind: "a" })).toBeCloseTo(3.65);
    expect(families.get("job_seconds")!.type).toBe("histogram");
  });

  test("when a name is invalid or registered twice, then registering throws", () => {
    const registry = new MetricsRegistry();
    expect(() => registry.counter("bad-name", "x")).toThrow();
    expect(() => registry.counter("ok_total", "x", ["__reserved"])).toThrow();
    expect(() => registry.histogram("h", "x", ["le"])).toThrow();
    registry.counter("ok_total", "x");
    expect(() => registry.collect("ok_total", "x", "gauge", () => 0)).toThrow();
  });

  test("when an unknown method is recorded, then the method label stays bounded", () => {
    const http = httpMetrics();
    http.record({ route: "/x", method: "BREW", status: 418, seconds: 0.01 });
    expect(sampleValue(parsePrometheusText(http.registry.expose()), "http_requests_total", { route: "/x", method: "OTHER", status: "418" })).toBe(1);
  });
});

describe("countRequests", () => {
  const app = () => {
    const metrics = httpMetrics();
    const instance = new Elysia()
      .use(metricsRoute(metrics))
      .use(errorHandler({ validationCode: "validation_error", logger: createLogger("test", "silent") }))
      .get("/v1/things/:id", ({ params }) => {
        if (params.id === "missing") throw ApiError.notFound("No such thing.");
        return { id: params.id };
      })
      .post("/v1/things", ({ set }) => {
        set.status = 201;
        return { ok: true };
      })
      .get("/v1/boom", () => {
        throw new Error("a defect");
      });
    const fetch = countRequests((request) => instance.fetch(request), metrics, routeLabels(["/v1/things/:id", "/v1/things", "/v1/boom", "/metrics"]));
    return { metrics, fetch };
  };

  test("when requests are answered, then they are counted by route template, method and the status answered, never by raw path", async () => {
    const { metrics, fetch } = app();
    await fetch(new Request("http://local/v1/things/1"));
    await fetch(new Request("http://local/v1/things/2/"));
    await fetch(new Request("http://local/v1/things/missing?x=1"));
    await fetch(new Request("http://local/v1/things", { method: "POST" }));
    await fetch(new Request("http://local/v1/boom"));
    await fetch(new Request("http://local/no/such/path"));
    const response = await fetch(new Request("http://local/metrics"));
    expect(response.headers.get("content-type")).toBe(PROMETHEUS_CONTENT_TYPE);
    const families = parsePrometheusText(await response.text());
    const count = (labels: Record<string, string>) => sampleValue(families, "http_requests_total", labels);
    expect(count({ route: "/v1/things/:id", method: "GET", status: "200" })).toBe(2);
    expect(count({ route: "/v1/things/:id", method: "GET", status: "404" })).toBe(1);
    expect(count({ route: "/v1/things", method: "POST", status: "201" })).toBe(1);
    expect(count({ route: "/v1/boom", method: "GET", status: "500" })).toBe(1);
    expect(count({ route: "unmatched", method: "GET", status: "404" })).toBe(1);
    expect(sampleValue(families, "http_request_duration_seconds_count", { route: "/v1/things/:id" })).toBe(3);
    expect(metrics.registry.expose()).not.toContain("/v1/things/1");
  });

  test("when the handler throws or its promise fails, then the request counts as a 500 and the error goes on", async () => {
    const metrics = httpMetrics();
    const labels = routeLabels(["/x"]);
    const throwing = countRequests(() => {
      throw new Error("at once");
    }, metrics, labels);
    const failing = countRequests(() => Promise.reject(new Error("later")), metrics, labels);
    expect(() => throwing(new Request("http://local/x"))).toThrow("at once");
    await expect(failing(new Request("http://local/x"))).rejects.toThrow("later");
    expect(sampleValue(parsePrometheusText(metrics.registry.expose()), "http_requests_total", { route: "/x", method: "GET", status: "500" })).toBe(2);
  });
});

describe("healthRoutes", () => {
  test("when the process is draining, then /readyz answers 503 while /healthz stays 200", async () => {
    let draining = false;
    const app = new Elysia()
      .use(errorHandler({ validationCode: "validation_error", logger: createLogger("test", "silent") }))
      .use(healthRoutes({ checks: { database: async () => 1 }, isDraining: () => draining }));
    expect((await app.handle(new Request("http://local/readyz"))).status).toBe(200);
    draining = true;
    const response = await app.handle(new Request("http://local/readyz"));
    expect(response.status).toBe(503);
    expect((await response.json()).error.details.draining).toBe(true);
    expect((await app.handle(new Request("http://local/healthz"))).status).toBe(200);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiClient } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";
import { parsePrometheusText, sampleValue, type Family } from "./prometheus-format";

/** Starting the processes on embedded Postgres can take a minute on a busy machine. */
const HOOK_TIMEOUT_MS = 180_000;

let system: TestSystem;

async function scrape(url: string): Promise<Map<string, Family>> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  return parsePrometheusText(await response.text());
}

describe("when traffic has gone through the gateway", () => {
  let limitedSeen = 0;

  beforeAll(async () => {
    // Its own system, so the counts below are exactly this test's traffic.
    system = await startSystem();
    const tenant = await seedTenant(system);
    const call = apiClient(system.baseUrl, await tenant.key());
    for (let i = 0; i < 3; i++) expect((await call("GET", "/v1/new-page")).status).toBe(200);
    const created = await call("POST", "/v1/new-page", { title: "metrics" });
    expect(created.status).toBe(201);
    expect((await call("GET", `/v1/new-page/${created.body.id}`)).status).toBe(200);
    const anonymous = apiClient(system.baseUrl);
    for (let i = 0; i < 2; i++) expect((await anonymous("GET", "/v1/new-page")).status).toBe(401);
    expect((await anonymous("GET", "/no/such/path")).status).toBe(404);
    const tiny = apiClient(system.baseUrl, await tenant.key({ rate_limit_per_minute: 1 }));
    // A minute boundary may reset the window once; four calls still meet the limit.
    for (let i = 0; i < 4; i++) if ((await tiny("GET", "/v1/new-page")).status === 429) limitedSeen += 1;
    expect(limitedSeen).toBeGreaterThanOrEqual(1);
  }, HOOK_TIMEOUT_MS);
  afterAll(async () => {
    await system?.stop();
  }, HOOK_TIMEOUT_MS);

  test("then the gateway's /metrics on the internal port counts requests by route, method and status", async () => {
    const families = await scrape(system.adminUrl);
    const requests = (labels: Record<string, string>) => sampleValue(families, "http_requests_total", labels);
    expect(families.get("http_requests_total")!.type).toBe("counter");
    expect(requests({ route: "listPages", method: "GET", status: "200" })).toBe(3 + 4 - limitedSeen);
    expect(requests({ route: "listPages", method: "GET", status: "401" })).toBe(2);
    expect(requests({ route: "listPages", method: "GET", status: "429" })).toBe(limitedSeen);
    expect(requests({ route: "createPage", method: "POST", status: "201" })).toBe(1);
    expect(requests({ route: "getPage", method: "GET", status: "200" })).toBe(1);
    expect(requests({ route: "unmatched", method: "GET", status: "404" })).toBe(1);
    for (const sample of families.get("http_requests_total")!.samples) {
      expect(Object.keys(sample.labels).sort()).toEqual(["method", "route", "status"]);
    }
  });

  test("then the gateway's latency histogram agrees with its counters", async () => {
    const families = await scrape(system.adminUrl);
    const histogram = families.get("http_request_duration_seconds")!;
    expect(histogram.type).toBe("histogram");
    expect(sampleValue(families, "http_request_duration_seconds_count", { route: "listPages" })).toBe(3 + 4 + 2);
    expect(sampleValue(families, "http_request_duration_seconds_bucket", { route: "listPages", le: "+Inf" })).toBe(9);
    expect(sampleValue(families, "http_request_duration_seconds_sum", { route: "listPages" })).toBeGreaterThan(0);
  });

  test("then rate-limit decisions and the Redis state are exported", async () => {
    const families = await scrape(system.adminUrl);
    // Every authenticated request took a decision: 3 + 1 + 1 with the first key, 4 with the tiny one.
    expect(sampleValue(families, "ratelimit_decisions_total", { outcome: "allowed" })).toBe(5 + 4 - limitedSeen);
    // Past twice its limit the tiny key is suspended: its 429s are limited first, then suspended.
    const limited = sampleValue(families, "ratelimit_decisions_total", { outcome: "limited" }) ?? 0;
    const suspended = sampleValue(families, "ratelimit_decisions_total", { outcome: "suspended" }) ?? 0;
    expect(limited).toBeGreaterThanOrEqual(1);
    expect(limited + suspended).toBe(limitedSeen);
    expect(sampleValue(families, "ratelimit_redis_degraded")).toBe(0);
    expect(families.get("ratelimit_redis_degraded")!.type).toBe("gauge");
    expect(families.get("ratelimit_fallback_decisions_total")!.type).toBe("counter");
    expect(families.get("upstream_errors_total")!.type).toBe("counter");
  });

  test("then a service's /metrics counts by route template, never by raw path", async () => {
    const text = await (await fetch(`${system.pagesUrl}/metrics`)).text();
    const families = parsePrometheusText(text);
    const requests = (labels: Record<string, string>) => sampleValue(families, "http_requests_total", labels);
    expect(requests({ route: "/v1/new-page", method: "GET", status: "200" })).toBe(3 + 4 - limitedSeen);
    expect(requests({ route: "/v1/new-page", method: "POST", status: "201" })).toBe(1);
    expect(requests({ route: "/v1/new-page/:id", method: "GET", status: "200" })).toBe(1);
    expect(sampleValue(families, "http_request_duration_seconds_count", { route: "/v1/new-page/:id" })).toBe(1);
    expect(text).not.toMatch(/\/v1\/new-page\/[0-9a-f]{8}-/);
  });

  test("then /metrics is not served on the public port", async () => {
    const response = await fetch(`${system.baseUrl}/metrics`);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain("http_requests_total");
  });
});

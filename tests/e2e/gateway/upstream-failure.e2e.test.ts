import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { apiClient } from "../../harness/http";
import { freePortBlock } from "../../harness/ports";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";

let system: TestSystem;
let slowUpstream: ReturnType<typeof Bun.serve>;

describe("when a service is down or slow", () => {
  beforeAll(async () => {
    const port = await freePortBlock(1);
    // Stands in for a hung service: accepts the request and never answers in time.
    slowUpstream = Bun.serve({ port, hostname: "127.0.0.1", fetch: () => Bun.sleep(10_000).then(() => new Response("late")) });
    system = await startSystem({ gatewayEnv: { CALENDAR_URL: `http://127.0.0.1:${port}`, UPSTREAM_TIMEOUT_MS: "500" } });
  });
  afterAll(async () => {
    slowUpstream?.stop(true);
    await system?.stop();
  });

  test("when the service does not answer in time, then the gateway answers 503 service_unavailable within its timeout", async () => {
    const call = apiClient(system.baseUrl, await (await seedTenant(system)).key());
    const started = performance.now();
    const response = await call("GET", "/api/calendar/events");
    expect(performance.now() - started).toBeLessThan(3000);
    expectError(response, 503, "service_unavailable");
    expect(response.headers.get("x-ratelimit-limit")).toBe("1000");
  });

  test("when the service process is gone, then the gateway answers 503 service_unavailable", async () => {
    const call = apiClient(system.baseUrl, await (await seedTenant(system)).key());
    const pages = system.running.children.find((child) => child.name === "pages")!;
    pages.process.kill("SIGKILL");
    await pages.exited;
    const response = await call("GET", "/v1/new-page");
    expectError(response, 503, "service_unavailable");
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError, expectOutcomeUnknown } from "../../harness/assertions";
import { apiClient } from "../../harness/http";
import { freePortBlock } from "../../harness/ports";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";

const UPSTREAM_TIMEOUT_MS = 500;
let system: TestSystem;
let slowUpstream: ReturnType<typeof Bun.serve>;
const budgetsSeen: (string | null)[] = [];

describe("when a service is down or slow", () => {
  beforeAll(async () => {
    const port = await freePortBlock(1);
    // Stands in for a hung service: accepts the request and never answers in time.
    slowUpstream = Bun.serve({
      port,
      hostname: "127.0.0.1",
      fetch: (request) => {
        budgetsSeen.push(request.headers.get("x-request-budget-ms"));
        return Bun.sleep(10_000).then(() => new Response("late"));
      },
    });
    system = await startSystem({ gatewayEnv: { CALENDAR_URL: `http://127.0.0.1:${port}`, UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) } });
  });
  afterAll(async () => {
    slowUpstream?.stop(true);
    await system?.stop();
  });

  test("when the service does not answer a read in time, then the gateway answers 502 service_unavailable, its outcome unknown, within its timeout, with Retry-After", async () => {
    const call = apiClient(system.baseUrl, await (await seedTenant(system)).key());
    const started = performance.now();
    const response = await call("GET", "/api/calendar/events");
    expect(performance.now() - started).toBeLessThan(3000);
    expectOutcomeUnknown(response);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(response.headers.get("x-ratelimit-limit")).toBe("1000");
  });

  test("when the service does not answer a create in time, then the answer is 502 service_unavailable, its outcome unknown, without Retry-After (repeating it could create twice)", async () => {
    const call = apiClient(system.baseUrl, await (await seedTenant(system)).key());
    const response = await call("POST", "/api/calendar/calendars", { name: "Team" });
    expectOutcomeUnknown(response);
    expect(response.headers.get("retry-after")).toBeNull();
  });

  test("when a request is forwarded, then the service is given a budget shorter than the gateway's timeout, whatever budget the client sent", async () => {
    const call = apiClient(system.baseUrl, await (await seedTenant(system)).key());
    budgetsSeen.length = 0;
    await call("GET", "/api/calendar/events", undefined, { "x-request-budget-ms": "600000" });
    expect(budgetsSeen).toHaveLength(1);
    const budget = Number(budgetsSeen[0]);
    expect(budget).toBeGreaterThan(0);
    expect(budget).toBeLessThan(UPSTREAM_TIMEOUT_MS);
  });

  test("when the service process is gone, then the gateway answers 503 service_unavailable with Retry-After: nothing was executed", async () => {
    const call = apiClient(system.baseUrl, await (await seedTenant(system)).key());
    const pages = system.running.children.find((child) => child.name === "pages")!;
    pages.process.kill("SIGKILL");
    await pages.exited;
    const response = await call("POST", "/v1/new-page", { title: "never stored" });
    expectError(response, 503, "service_unavailable");
    expect(response.headers.get("retry-after")).toBe("1");
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiClient, isErrorObject } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";
import { freshWindow, rateLimitHeadersOf, sleep, withRedis } from "./helpers";

let system: TestSystem;
let tenant: Tenant;

describe.skipIf(!withRedis)("rate limit headers and 429s on real Redis", () => {
  beforeAll(async () => {
    system = await startSystem();
    tenant = await seedTenant(system);
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  test("when a key sends requests in one window, then Limit is its limit, Remaining falls by one each time, Reset is the end of the clock minute, and past the limit it gets 429 rate_limit_exceeded with Retry-After", async () => {
    await freshWindow(10);
    const call = apiClient(system.baseUrl, await tenant.key({ rate_limit_per_minute: 3 }));
    const responses = [];
    for (let i = 0; i < 5; i++) responses.push(await call("GET", "/v1/new-page"));
    const headers = responses.map(rateLimitHeadersOf);
    const endOfMinute = (Math.floor(Date.now() / 60_000) + 1) * 60;

    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    expect(headers.map((h) => h.limit)).toEqual([3, 3, 3, 3, 3]);
    expect(headers.map((h) => h.remaining)).toEqual([2, 1, 0, 0, 0]);
    expect(new Set(headers.map((h) => h.reset))).toEqual(new Set([endOfMinute]));
    expect(headers.slice(0, 3).every((h) => h.retryAfter === undefined)).toBe(true);

    const limited = responses[3]!;
    expect(isErrorObject(limited.body)).toBe(true);
    expect(limited.body.error.code).toBe("rate_limit_exceeded");
    const retryAfter = headers[3]!.retryAfter!;
    const secondsLeft = endOfMinute - Date.now() / 1000;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(Math.abs(retryAfter - secondsLeft)).toBeLessThanOrEqual(2);
  });

  test("when the default limit applies, then Limit is RATE_LIMIT_PER_MINUTE's default 1000", async () => {
    const response = await apiClient(system.baseUrl, await tenant.key())("GET", "/v1/new-page");
    expect(rateLimitHeadersOf(response)).toMatchObject({ limit: 1000, remaining: 999 });
  });

  test("when one key is past its limit, then another key of the same workspace is not affected", async () => {
    await freshWindow(10);
    const first = apiClient(system.baseUrl, await tenant.key({ rate_limit_per_minute: 2 }));
    const second = apiClient(system.baseUrl, await tenant.key({ rate_limit_per_minute: 2 }));
    for (let i = 0; i < 3; i++) await first("GET", "/v1/new-page");
    expect((await first("GET", "/v1/new-page")).status).toBe(429);
    const other = await second("GET", "/v1/new-page");
    expect(other.status).toBe(200);
    expect(rateLimitHeadersOf(other).remaining).toBe(1);
  });

  test("when an authenticated request ends in 403, 404 or 422, then it carries the headers and counts against the limit", async () => {
    await freshWindow(10);
    const readOnly = apiClient(system.baseUrl, await tenant.key({ scopes: ["docs:read"], rate_limit_per_minute: 10 }));
    const forbidden = await readOnly("POST", "/v1/new-page", { title: "no scope" });
    const missing = await readOnly("GET", "/v1/new-page/00000000-0000-4000-8000-000000000000");
    const full = apiClient(system.baseUrl, await tenant.key({ rate_limit_per_minute: 10 }));
    const invalid = await full("POST", "/v1/new-page", {});

    expect(forbidden.status).toBe(403);
    expect(rateLimitHeadersOf(forbidden)).toMatchObject({ limit: 10, remaining: 9 });
    expect(missing.status).toBe(404);
    expect(rateLimitHeadersOf(missing)).toMatchObject({ limit: 10, remaining: 8 });
    expect(invalid.status).toBe(422);
    expect(rateLimitHeadersOf(invalid)).toMatchObject({ limit: 10, remaining: 9 });
  });

  test("when a request has no valid key, then the 401 carries no rate-limit headers", async () => {
    const response = await apiClient(system.baseUrl)("GET", "/v1/new-page");
    expect(response.status).toBe(401);
    expect(response.headers.has("x-ratelimit-limit")).toBe(false);
  });

  test("when the window ends, then the key's count starts again in the next one", async () => {
    await freshWindow(10);
    const call = apiClient(system.baseUrl, await tenant.key({ rate_limit_per_minute: 2 }));
    for (let i = 0; i < 2; i++) await call("GET", "/v1/new-page");
    const limited = await call("GET", "/v1/new-page");
    const { reset } = rateLimitHeadersOf(limited);
    expect(limited.status).toBe(429);
    const wait = reset! * 1000 - Date.now() + 300;
    expect(wait).toBeLessThanOrEqual(61_000);
    await sleep(wait);
    const next = await call("GET", "/v1/new-page");
    expect(next.status).toBe(200);
    expect(rateLimitHeadersOf(next)).toMatchObject({ limit: 2, remaining: 1, reset: reset! + 60 });
  }, 90_000);
});

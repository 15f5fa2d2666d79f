import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { apiClient, isErrorObject } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";
import { freshWindow, rateLimitHeadersOf, redisUrlWithDatabase, sleep, withRedis } from "./helpers";

let system: TestSystem;
let tenant: Tenant;
const AUTH_FAILURE_LIMIT = 5;
const OWN_DATABASE = 9;

describe.skipIf(!withRedis)("suspension and failed-authentication limiting across two replicas", () => {
  beforeAll(async () => {
    system = await startSystem({
      replicas: 2,
      // A database of its own: the failed-authentication counter is per address (127.0.0.1 for every suite).
      env: { REDIS_URL: redisUrlWithDatabase(OWN_DATABASE) },
      gatewayEnv: { RATE_LIMIT_SUSPEND_SECONDS: "3", RATE_LIMIT_SUSPEND_AFTER_MULTIPLE: "2", AUTH_FAILURE_LIMIT_PER_MINUTE: String(AUTH_FAILURE_LIMIT) },
    });
    tenant = await seedTenant(system);
    // A rerun within the same minute must not start with this address already counted.
    const redis = new Redis(redisUrlWithDatabase(OWN_DATABASE));
    const leftovers = await redis.keys("auth-fail:*");
    if (leftovers.length > 0) await redis.del(...leftovers);
    redis.disconnect();
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  test("when a key goes on past twice its limit, then every replica answers 429 key_suspended with Retry-After, and when the suspension ends it is back to rate_limit_exceeded", async () => {
    await freshWindow(15);
    const key = await tenant.key({ rate_limit_per_minute: 2 });
    const calls = system.baseUrls.map((url) => apiClient(url, key));
    const codes = [];
    for (let i = 0; i < 5; i++) {
      const response = await calls[i % 2]!("GET", "/v1/new-page");
      codes.push(response.status === 200 ? 200 : response.body.error.code);
    }
    expect(codes).toEqual([200, 200, "rate_limit_exceeded", "rate_limit_exceeded", "key_suspended"]);

    const onOther = await calls[1]!("GET", "/v1/new-page");
    expect(onOther.status).toBe(429);
    expect(isErrorObject(onOther.body)).toBe(true);
    expect(onOther.body.error.code).toBe("key_suspended");
    const headers = rateLimitHeadersOf(onOther);
    expect(headers).toMatchObject({ limit: 2, remaining: 0 });
    expect(headers.retryAfter).toBeGreaterThanOrEqual(1);
    expect(headers.retryAfter).toBeLessThanOrEqual(3);
    // X-RateLimit-Reset is the end of the current window, as on every answer; Retry-After is the end of the suspension.
    expect(headers.reset! % 60).toBe(0);
    expect(headers.reset! - Date.now() / 1000).toBeGreaterThan(0);
    expect(headers.reset! - Date.now() / 1000).toBeLessThanOrEqual(60);

    await sleep(headers.retryAfter! * 1000 + 200);
    const after = await calls[0]!("GET", "/v1/new-page");
    expect(after.status).toBe(429);
    expect(after.body.error.code).toBe("rate_limit_exceeded");
    expect(rateLimitHeadersOf(after).retryAfter).toBeGreaterThanOrEqual(1);
  });

  test("when an address keeps presenting bad keys, then past the limit the failures answer 429 rate_limit_exceeded with Retry-After and the address's X-RateLimit-* headers, on every replica", async () => {
    const bad = system.baseUrls.map((url) => apiClient(url, "wsk_not-a-real-key"));
    const statuses = [];
    let limited;
    for (let i = 0; i < AUTH_FAILURE_LIMIT + 2; i++) {
      const response = await bad[i % 2]!("GET", "/v1/new-page");
      statuses.push(response.status);
      if (response.status === 429) limited ??= response;
    }
    // The counter is per minute and shared: a run straddling a minute may see the 429s start later, never earlier.
    expect(statuses.slice(0, AUTH_FAILURE_LIMIT)).toEqual(Array(AUTH_FAILURE_LIMIT).fill(401));
    expect(limited).toBeDefined();
    expect(limited!.body.error.code).toBe("rate_limit_exceeded");
    const retryAfter = Number(limited!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Every 429 carries the rate-limit headers: here the address's limit of failures, none left, and the end of its minute.
    expect(limited!.headers.get("x-ratelimit-limit")).toBe(String(AUTH_FAILURE_LIMIT));
    expect(limited!.headers.get("x-ratelimit-remaining")).toBe("0");
    const reset = Number(limited!.headers.get("x-ratelimit-reset"));
    expect(reset % 60).toBe(0);
    expect(reset - Date.now() / 1000).toBeGreaterThan(0);
    expect(reset - Date.now() / 1000).toBeLessThanOrEqual(60);
  });
});

import { describe, expect, test } from "bun:test";
import { ApiError } from "@ws/shared";
import { createMemoryAuthFailureLimiter } from "./auth-failure-limiter";

const MINUTE_MS = (1_763_700_000 - (1_763_700_000 % 60)) * 1000;

describe("memory auth-failure limiter", () => {
  test("when an address fails past its limit, then the failure answers 429 rate_limit_exceeded with Retry-After to the end of the minute", async () => {
    let now = MINUTE_MS + 20_000;
    const limiter = createMemoryAuthFailureLimiter(2, () => now);
    await limiter.recordFailure("10.0.0.1");
    await limiter.recordFailure("10.0.0.1");
    const error = (await limiter.recordFailure("10.0.0.1").catch((caught) => caught)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(429);
    expect(error.code).toBe("rate_limit_exceeded");
    expect(error.toResponse().headers.get("retry-after")).toBe("40");
    expect(await limiter.assertNotBlocked("10.0.0.1").catch((caught) => caught)).toBeInstanceOf(ApiError);
    await limiter.assertNotBlocked("10.0.0.2");
    now = MINUTE_MS + 60_000;
    await limiter.recordFailure("10.0.0.1");
  });

  test("when IPv6 addresses of one /64 fail, then they share one counter, and another /64 has its own", async () => {
    const limiter = createMemoryAuthFailureLimiter(2, () => MINUTE_MS);
    await limiter.recordFailure("2001:db8:1:2::1");
    await limiter.recordFailure("2001:db8:1:2:ffff::2");
    expect(await limiter.assertNotBlocked("2001:db8:1:2::abcd").catch((caught) => caught)).toBeInstanceOf(ApiError);
    await limiter.assertNotBlocked("2001:db8:1:3::1");
  });
});

import { describe, expect, test } from "bun:test";
import { assertAllowed, rateLimitHeaders } from "./headers";
import { decide } from "./limiter";

const MINUTE = 1_800_000_000 - (1_800_000_000 % 60);

/** Seconds from `now` to the moment X-RateLimit-Reset names, against Retry-After. */
function gap(headers: Record<string, string>, now: number): number {
  return Number(headers["x-ratelimit-reset"]) - now - Number(headers["retry-after"]);
}

describe("rate-limit headers", () => {
  test("when a key is suspended for longer than the window, then X-RateLimit-Reset is still the end of the window and Retry-After the end of the suspension", () => {
    const now = MINUTE + 10.4;
    const headers = rateLimitHeaders(decide(25, 10, now, 299.6, null));
    expect(headers["retry-after"]).toBe("300");
    expect(headers["x-ratelimit-reset"]).toBe(String(MINUTE + 60));
    expect(headers["x-ratelimit-remaining"]).toBe("0");
  });

  test("when a key is suspended, then the error body's retry_after is the same Retry-After", () => {
    const decision = decide(25, 10, MINUTE + 3, 120, null);
    expect(() => assertAllowed(decision)).toThrow("Retry in 120 s");
  });

  test("when a key is over its limit, then X-RateLimit-Reset is the end of the window and Retry-After the seconds until then", () => {
    const now = MINUTE + 45.5;
    const headers = rateLimitHeaders(decide(11, 10, now, 0, null));
    expect(headers["x-ratelimit-reset"]).toBe(String(MINUTE + 60));
    expect(headers["retry-after"]).toBe("15");
    expect(Math.abs(gap(headers, now))).toBeLessThan(1);
  });

  test("when a request is allowed, then X-RateLimit-Reset is the end of the window and there is no Retry-After", () => {
    const headers = rateLimitHeaders(decide(3, 10, MINUTE + 5, 0, null));
    expect(headers).toEqual({ "x-ratelimit-limit": "10", "x-ratelimit-remaining": "7", "x-ratelimit-reset": String(MINUTE + 60) });
  });
});

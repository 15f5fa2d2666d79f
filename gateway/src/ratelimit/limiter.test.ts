import { describe, expect, test } from "bun:test";
import { decide, underLimit, windowEnd } from "./limiter";

const MINUTE = 1_763_700_000 - (1_763_700_000 % 60);

describe("decide", () => {
  test("when the first request of a window arrives, then it is allowed with limit − 1 remaining and Reset at the end of the clock minute", () => {
    const decision = decide(1, 10, MINUTE + 12.5, 0, "3");
    expect(decision).toEqual({ outcome: "allowed", limit: 10, count: 1, remaining: 9, resetAt: MINUTE + 60, retryAfter: 0, authEpoch: "3" });
  });

  test("when the count reaches the limit exactly, then the request is allowed with 0 remaining", () => {
    const decision = decide(10, 10, MINUTE + 1, 0, null);
    expect(decision.outcome).toBe("allowed");
    expect(decision.remaining).toBe(0);
  });

  test("when the count passes the limit, then it is limited, Remaining stays 0 and Retry-After runs to the end of the window", () => {
    const decision = decide(11, 10, MINUTE + 45.2, 0, null);
    expect(decision.outcome).toBe("limited");
    expect(decision.remaining).toBe(0);
    expect(decision.retryAfter).toBe(15);
    expect(decision.resetAt).toBe(MINUTE + 60);
  });

  test("when a request is limited in the last fraction of a second, then Retry-After is still at least 1", () => {
    expect(decide(50, 10, MINUTE + 59.999, 0, null).retryAfter).toBe(1);
  });

  test("when the time is exactly on a minute boundary, then the window is the one starting there", () => {
    expect(windowEnd(MINUTE)).toBe(MINUTE + 60);
    expect(decide(1, 10, MINUTE, 0, null).resetAt).toBe(MINUTE + 60);
  });

  test("when the key is suspended, then the outcome is suspended with Retry-After rounded up from what is left", () => {
    const decision = decide(3, 10, MINUTE + 5, 2.2, null);
    expect(decision.outcome).toBe("suspended");
    expect(decision.remaining).toBe(0);
    expect(decision.retryAfter).toBe(3);
  });

  test("when the key is suspended with less than a second left, then Retry-After is 1", () => {
    expect(decide(3, 10, MINUTE + 5, 0.01, null).retryAfter).toBe(1);
  });

  test("when counts run far past the limit, then Remaining is never negative", () => {
    for (const count of [11, 100, 1_000_000]) expect(decide(count, 10, MINUTE, 0, null).remaining).toBe(0);
  });
});

describe("underLimit", () => {
  test("when a request counted under 1000 is held to a new limit of 2, then it is limited until the window's end", () => {
    const decision = underLimit(decide(3, 1000, MINUTE + 20, 0, "4"), 2, MINUTE + 20);
    expect(decision).toEqual({ outcome: "limited", limit: 2, count: 3, remaining: 0, resetAt: MINUTE + 60, retryAfter: 40, authEpoch: "4" });
  });

  test("when a refused request is held to a raised limit, then it is allowed with what the new limit leaves", () => {
    const decision = underLimit(decide(3, 2, MINUTE + 20, 0, "4"), 100, MINUTE + 20);
    expect(decision).toEqual({ outcome: "allowed", limit: 100, count: 3, remaining: 97, resetAt: MINUTE + 60, retryAfter: 0, authEpoch: "4" });
  });

  test("when the limit is the same, then the decision stands", () => {
    const same = decide(3, 10, MINUTE, 0, null);
    expect(underLimit(same, 10)).toBe(same);
  });

  test("when the key is suspended, then it stays suspended, and the headers name the new limit", () => {
    const suspended = decide(30, 10, MINUTE, 120, null);
    expect(underLimit(suspended, 1000)).toEqual({ ...suspended, limit: 1000 });
  });
});

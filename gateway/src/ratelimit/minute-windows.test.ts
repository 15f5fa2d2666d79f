import { describe, expect, test } from "bun:test";
import { createMemoryAuthFailureLimiter } from "./auth-failure-limiter";
import { createMemoryLimiter } from "./memory-limiter";
import { MAX_TRACKED_IDS, minuteWindows } from "./minute-windows";

const MINUTE = 1_763_700_000 - (1_763_700_000 % 60);

describe("per-id counts of the clock minute", () => {
  test("when ids of earlier minutes pile up, then they are swept and the ids counting now keep their counts", () => {
    const windows = minuteWindows(() => ({}), 1000);
    for (let minute = 0; minute < 5; minute++) {
      const now = MINUTE + minute * 60 + 1;
      for (let i = 0; i < 900; i++) windows.current(`m${minute}-${i}`, now).count += 1;
      windows.current("steady", now).count += 7;
      expect(windows.peek("steady", now)?.count).toBe(7);
      expect(windows.peek(`m${minute}-0`, now)).toMatchObject({ count: 1, shared: false });
    }
    // At most about twice the ids of the minute still counting, not all 4,505.
    expect(windows.size()).toBeLessThanOrEqual(2 * 901);
  });

  test("when more ids than it can hold count in one minute, then the new ones share one count and no count starts over", () => {
    const windows = minuteWindows(() => ({}), 100);
    const now = MINUTE + 5;
    windows.current("first", now).count = 42;
    for (let i = 0; i < 99; i++) windows.current(`id${i}`, now).count += 1;
    const late = [windows.current("late-a", now), windows.current("late-b", now)];
    late[0]!.count += 1;
    late[1]!.count += 1;
    expect(late[0]).toBe(late[1]!);
    expect(late[0]).toMatchObject({ count: 2, shared: true });
    expect(windows.peek("late-c", now)).toMatchObject({ count: 2, shared: true });
    expect(windows.peek("first", now)?.count).toBe(42);
    // The next minute has room again, and the shared count is gone with its minute.
    expect(windows.current("late-a", now + 60)).toMatchObject({ count: 0, shared: false });
  });

  test("when a count taken over from elsewhere finds the map full, then the shared count is raised to it", () => {
    const windows = minuteWindows(() => ({}), 10);
    const now = MINUTE + 5;
    for (let i = 0; i < 10; i++) windows.current(`id${i}`, now);
    windows.raise("other", MINUTE / 60, 30);
    expect(windows.peek("other", now)).toMatchObject({ count: 30, shared: true });
  });
});

describe("the in-memory limiters past the ids they can hold", () => {
  test("when an address is blocked for failed logins and 100,000 other addresses then fail in the same minute, then it stays blocked", async () => {
    const now = (MINUTE + 10) * 1000;
    const limiter = createMemoryAuthFailureLimiter(3, () => now);
    for (let i = 0; i < 4; i++) await limiter.recordFailure("203.0.113.7").catch(() => {});
    expect(await limiter.assertNotBlocked("203.0.113.7").catch((error) => error.status)).toBe(429);
    for (let i = 0; i < MAX_TRACKED_IDS; i++) await limiter.recordFailure(`2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::1`).catch(() => {});
    expect(await limiter.assertNotBlocked("203.0.113.7").catch((error) => error.status)).toBe(429);
  });

  test("when a key has used its limit and 100,000 other keys then send a request in the same minute, then the key is still refused", async () => {
    const now = (MINUTE + 10) * 1000;
    const limiter = createMemoryLimiter({ suspendAfterMultiple: 1000, suspendSeconds: 1 }, null, () => now);
    for (let i = 0; i < 5; i++) await limiter.hit({ id: "key_busy", workspaceId: "ws", limit: 5 });
    for (let i = 0; i < MAX_TRACKED_IDS; i++) await limiter.hit({ id: `key_${i}`, workspaceId: "ws", limit: 1_000_000 });
    expect((await limiter.hit({ id: "key_busy", workspaceId: "ws", limit: 5 })).outcome).toBe("limited");
  });

  test("when keys past the ids a minute can hold share a count, then that count refuses them but never suspends them", async () => {
    const now = (MINUTE + 10) * 1000;
    const limiter = createMemoryLimiter({ suspendAfterMultiple: 2, suspendSeconds: 30 }, null, () => now);
    for (let i = 0; i < MAX_TRACKED_IDS; i++) await limiter.hit({ id: `key_${i}`, workspaceId: "ws", limit: 1_000_000 });
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push((await limiter.hit({ id: `late_${i}`, workspaceId: "ws", limit: 1 })).outcome);
    expect(outcomes).toEqual(["allowed", "limited", "limited", "limited"]);
  });
});

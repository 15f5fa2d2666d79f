import { describe, expect, test } from "bun:test";
import { createMemoryEpochs } from "../auth/credential-epochs";
import { createMemoryLimiter } from "./memory-limiter";

const MINUTE_MS = (1_763_700_000 - (1_763_700_000 % 60)) * 1000;

function limiterAt(startMs: number, policy = { suspendAfterMultiple: 2, suspendSeconds: 3 }) {
  let now = startMs;
  const limiter = createMemoryLimiter(policy, null, () => now);
  return { limiter, set: (ms: number) => (now = ms), advance: (ms: number) => (now += ms) };
}

const key = (id = "key_a", limit = 3) => ({ id, workspaceId: "ws_1", limit });

describe("memory limiter", () => {
  test("when requests arrive within one window, then Remaining falls by one each time and the one past the limit is limited", async () => {
    const { limiter } = limiterAt(MINUTE_MS + 10_000);
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.hit(key()));
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(decisions.map((d) => d.outcome)).toEqual(["allowed", "allowed", "allowed", "limited"]);
    expect(decisions.every((d) => d.resetAt === MINUTE_MS / 1000 + 60)).toBe(true);
    expect(decisions[3]!.retryAfter).toBe(50);
  });

  test("when a key's limit is lowered below half of what it has sent this minute, then its requests are limited, not suspended", async () => {
    const { limiter } = limiterAt(MINUTE_MS + 10_000);
    for (let i = 0; i < 30; i++) await limiter.hit(key("key_a", 100));
    const lowered = [];
    for (let i = 0; i < 3; i++) lowered.push(await limiter.hit(key("key_a", 10)));
    expect(lowered.map((d) => [d.count, d.outcome])).toEqual([[31, "limited"], [32, "limited"], [33, "limited"]]);
  });

  test("when the clock minute rolls over, then the count starts again", async () => {
    const { limiter, set } = limiterAt(MINUTE_MS + 59_000);
    for (let i = 0; i < 4; i++) await limiter.hit(key());
    set(MINUTE_MS + 60_000);
    const decision = await limiter.hit(key());
    expect(decision.outcome).toBe("allowed");
    expect(decision.remaining).toBe(2);
    expect(decision.resetAt).toBe(MINUTE_MS / 1000 + 120);
  });

  test("when two keys send, then each has its own count", async () => {
    const { limiter } = limiterAt(MINUTE_MS);
    for (let i = 0; i < 4; i++) await limiter.hit(key("key_a"));
    expect((await limiter.hit(key("key_b"))).remaining).toBe(2);
  });

  test("when a key sends past twice its limit, then it is suspended for the configured time, and after that it is limited but not suspended again in the same window", async () => {
    const { limiter, advance } = limiterAt(MINUTE_MS + 1_000);
    const outcomes = [];
    for (let i = 0; i < 7; i++) outcomes.push((await limiter.hit(key())).outcome);
    expect(outcomes).toEqual(["allowed", "allowed", "allowed", "limited", "limited", "limited", "suspended"]);
    advance(2_000);
    const during = await limiter.hit(key());
    expect(during.outcome).toBe("suspended");
    expect(during.retryAfter).toBe(1);
    advance(1_001);
    expect((await limiter.hit(key())).outcome).toBe("limited");
  });

  test("when a suspension outlasts the window, then the next window is still refused until it ends", async () => {
    const { limiter, set } = limiterAt(MINUTE_MS + 58_000, { suspendAfterMultiple: 2, suspendSeconds: 5 });
    for (let i = 0; i < 7; i++) await limiter.hit(key());
    set(MINUTE_MS + 61_000);
    expect((await limiter.hit(key())).outcome).toBe("suspended");
    set(MINUTE_MS + 63_001);
    expect((await limiter.hit(key())).outcome).toBe("allowed");
  });

  test("when built with epochs, then the decision carries the workspace's epoch; without, null", async () => {
    const epochs = createMemoryEpochs();
    await epochs.publish("ws_1", "7");
    expect((await createMemoryLimiter({ suspendAfterMultiple: 2, suspendSeconds: 1 }, epochs).hit(key())).authEpoch).toBe("7");
    expect((await createMemoryLimiter({ suspendAfterMultiple: 2, suspendSeconds: 1 }, null).hit(key())).authEpoch).toBeNull();
  });
});

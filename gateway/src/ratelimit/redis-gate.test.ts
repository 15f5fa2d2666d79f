import { describe, expect, test } from "bun:test";
import { createRedisGate } from "./redis-gate";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("redis gate", () => {
  test("when a call fails, then it takes its fallback and Redis counts as down for every caller", async () => {
    const gate = createRedisGate();
    expect(await gate.run(async () => "redis", () => "memory")).toBe("redis");
    expect(await gate.run(() => Promise.reject(new Error("timeout")), () => "memory")).toBe("memory");
    expect(gate.down).toBe(true);
    expect(gate.stats).toMatchObject({ degraded: true, outages: 1, redisErrors: 1 });
  });

  test("when Redis hangs while down, then only one call at a time waits on it as a probe and the others fall back at once", async () => {
    const gate = createRedisGate();
    await gate.run(() => Promise.reject(new Error("down")), () => undefined);
    const calls: string[] = [];
    const hung = () => sleep(100).then(() => Promise.reject(new Error("Command timed out")));
    const started = performance.now();
    const waited = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        await gate.run(
          () => {
            calls.push(`redis ${i}`);
            return hung();
          },
          () => undefined,
        );
        return performance.now() - started;
      }),
    );
    expect(calls).toEqual(["redis 0"]);
    expect(waited.filter((ms) => ms >= 90)).toHaveLength(1);
  });

  test("when a probe succeeds, then the next calls go to Redis again", async () => {
    const gate = createRedisGate();
    await gate.run(() => Promise.reject(new Error("down")), () => undefined);
    expect(await gate.run(async () => "redis", () => "memory")).toBe("redis");
    expect(gate.down).toBe(false);
    expect(await gate.run(async () => "redis", () => "memory")).toBe("redis");
  });

  test("when a call that started before Redis came back fails late, then it does not start a new outage", async () => {
    const gate = createRedisGate();
    const stale = gate.run(() => sleep(60).then(() => Promise.reject(new Error("Command timed out"))), () => "memory");
    await gate.run(() => Promise.reject(new Error("down")), () => undefined);
    await sleep(10);
    expect(await gate.run(async () => "redis", () => "memory")).toBe("redis");
    expect(await stale).toBe("memory");
    expect(gate.down).toBe(false);
    expect(gate.stats.outages).toBe(1);
  });

  test("when a call does not settle within the timeout, then it takes its fallback at the timeout and Redis counts as down", async () => {
    const gate = createRedisGate({ timeoutMs: 50 });
    const started = performance.now();
    expect(await gate.run(() => new Promise<string>(() => {}), () => "memory")).toBe("memory");
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(gate.down).toBe(true);
    expect(gate.stats).toMatchObject({ outages: 1, redisErrors: 1 });
  });

  test("when calls answer within the timeout, then their own answers are used, never the fallback", async () => {
    const gate = createRedisGate({ timeoutMs: 50 });
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => gate.run(() => sleep(1).then(() => i), () => -1)));
    expect(answers).toEqual(Array.from({ length: 100 }, (_, i) => i));
    await sleep(80);
    expect(gate.down).toBe(false);
  });
});

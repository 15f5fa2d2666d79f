import { describe, expect, test } from "bun:test";
import { concurrencyGate } from "./concurrency-gate";

describe("the concurrency gate", () => {
  test("when more tasks arrive than the limit, then no more than the limit run at once and all finish in order", async () => {
    const admit = concurrencyGate(3);
    let running = 0;
    let most = 0;
    const finished: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        admit(async () => {
          running++;
          most = Math.max(most, running);
          await Bun.sleep(5);
          running--;
          finished.push(i);
        }),
      ),
    );
    expect(most).toBe(3);
    expect(finished).toHaveLength(20);
    expect(finished.slice(3)).toEqual([...finished.slice(3)].sort((a, b) => a - b));
  });

  test("when a task throws, then its slot is released for the next", async () => {
    const admit = concurrencyGate(1);
    await expect(admit(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await admit(async () => "next")).toBe("next");
  });
});

import { describe, expect, test } from "bun:test";
import { ApiError } from "../errors/api-error";
import { concurrencyGate } from "./concurrency-gate";
import { Deadline } from "./deadline";

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

describe("the concurrency gate with deadlines", () => {
  test("when a waiting task's deadline passes, then it is dropped without running, 503 not executed, and the queue moves on", async () => {
    const admit = concurrencyGate(1);
    const ran: string[] = [];
    let release!: () => void;
    const busy = admit(() => new Promise<void>((resolve) => (release = resolve)));
    const dropped = admit(async () => void ran.push("dropped"), Deadline.in(30)).catch((error) => error);
    const patient = admit(async () => void ran.push("patient"), Deadline.in(5_000));
    const error = await dropped;
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect((error as ApiError).code).toBe("service_unavailable");
    release();
    await busy;
    await patient;
    expect(ran).toEqual(["patient"]);
  });

  test("when a task starts before its deadline, then the deadline no longer drops it", async () => {
    const admit = concurrencyGate(1);
    expect(await admit(async () => {
      await Bun.sleep(40);
      return "done";
    }, Deadline.in(10))).toBe("done");
  });
});

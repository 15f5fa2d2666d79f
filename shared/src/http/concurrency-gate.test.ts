import { describe, expect, test } from "bun:test";
import { ApiError } from "../errors/api-error";
import { ACTIVE_WORKSPACE_MS, concurrencyGate } from "./concurrency-gate";
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

/** A task that runs until `finish` is called, counting how many of its workspace run at once. */
function heldTasks() {
  const running = new Map<string, number>();
  const most = new Map<string, number>();
  const finishers: (() => void)[] = [];
  const started: string[] = [];
  const task = (workspace: string) => () =>
    new Promise<void>((resolve) => {
      started.push(workspace);
      running.set(workspace, (running.get(workspace) ?? 0) + 1);
      most.set(workspace, Math.max(most.get(workspace) ?? 0, running.get(workspace)!));
      finishers.push(() => {
        running.set(workspace, running.get(workspace)! - 1);
        resolve();
      });
    });
  const finishAll = async () => {
    while (finishers.length) {
      finishers.shift()!();
      await Bun.sleep(0);
    }
  };
  return { task, running, most, started, finishAll };
}

describe("the concurrency gate's workspace shares", () => {
  test("when one workspace is alone, then it may use the whole gate, whatever the connections", async () => {
    const admit = concurrencyGate(80, { connections: 10 });
    const { task, running, finishAll } = heldTasks();
    const all = Array.from({ length: 40 }, () => admit(task("a"), undefined, "a"));
    expect(running.get("a")).toBe(40);
    await finishAll();
    await Promise.all(all);
  });

  test("when another workspace is active, then a workspace starts no more than its share of the connections and the other starts at once", async () => {
    const admit = concurrencyGate(80, { connections: 10 });
    const { task, running, finishAll } = heldTasks();
    const first = Array.from({ length: 40 }, () => admit(task("a"), undefined, "a"));
    const b = admit(task("b"), undefined, "b");
    expect(running.get("b")).toBe(1);
    // A's next requests wait until A runs fewer than its share (10 connections / 2 workspaces), then keep to it.
    const runningWhenStarted: number[] = [];
    const more = Array.from({ length: 10 }, () =>
      admit(
        () => {
          runningWhenStarted.push(running.get("a")! + 1);
          return task("a")();
        },
        undefined,
        "a",
      ),
    );
    expect(runningWhenStarted).toEqual([]);
    await finishAll();
    await Promise.all([...first, b, ...more]);
    expect(runningWhenStarted).toHaveLength(10);
    expect(Math.max(...runningWhenStarted)).toBe(5);
  });

  test("when workspaces wait for a full gate, then they take the freed slots in turn, each in its own order", async () => {
    const admit = concurrencyGate(2, { connections: 10 });
    const { task, started, finishAll } = heldTasks();
    const order: string[] = [];
    const tasks = [
      ...["a1", "a2", "a3", "a4", "a5"].map((name) => admit(async () => { order.push(name); await task("a")(); }, undefined, "a")),
      ...["b1", "b2"].map((name) => admit(async () => { order.push(name); await task("b")(); }, undefined, "b")),
    ];
    expect(started).toEqual(["a", "a"]);
    await finishAll();
    await Promise.all(tasks);
    expect(order).toEqual(["a1", "a2", "a3", "b1", "a4", "b2", "a5"]);
  });

  test("when the other workspace has sent nothing for a while, then the one left gets the whole gate back", async () => {
    let now = 0;
    const admit = concurrencyGate(80, { connections: 4, clock: () => now });
    const { task, running, finishAll } = heldTasks();
    await admit(async () => {}, undefined, "b");
    const held = Array.from({ length: 2 }, () => admit(task("a"), undefined, "a"));
    const waiting = admit(task("a"), undefined, "a");
    expect(running.get("a")).toBe(2);
    now += ACTIVE_WORKSPACE_MS + 1;
    const later = Array.from({ length: 5 }, () => admit(task("a"), undefined, "a"));
    expect(running.get("a")).toBe(2);
    await finishAll();
    await Promise.all([...held, waiting, ...later]);
    // B forgotten: A's requests run together again.
    const again = Array.from({ length: 6 }, () => admit(task("a"), undefined, "a"));
    expect(running.get("a")).toBe(6);
    await finishAll();
    await Promise.all(again);
  });

  test("when a workspace's waiting request reaches its deadline, then it alone is dropped and the workspaces go on taking turns", async () => {
    const admit = concurrencyGate(1, { connections: 10 });
    const { task, finishAll } = heldTasks();
    const running = admit(task("a"), undefined, "a");
    const dropped = admit(task("a"), Deadline.in(20), "a").catch((error: ApiError) => error.code);
    const b = admit(task("b"), Deadline.in(5_000), "b");
    expect(await dropped).toBe("service_unavailable");
    await finishAll();
    await running;
    await finishAll();
    await b;
  });

  test("when requests name no workspace, then they are never held to a share", async () => {
    const admit = concurrencyGate(80, { connections: 2 });
    const { task, running, finishAll } = heldTasks();
    const named = [admit(task("a"), undefined, "a"), admit(task("b"), undefined, "b")];
    const unnamed = Array.from({ length: 10 }, () => admit(task("none")));
    expect(running.get("none")).toBe(10);
    await finishAll();
    await Promise.all([...named, ...unnamed]);
  });
});

import { describe, expect, test } from "bun:test";
import type { RunningSystem } from "./launch-system";
import { isRunning, startChild, stopChild, type Child } from "./processes";
import { supervise, type SupervisionEvent } from "./supervise";

const BUN = process.execPath;

/** A system of real child processes running `script`; a restart runs `next()`'s script, and fails when it exits at once. */
function systemOf(name: string, script: string, next: () => string) {
  const children: Child[] = [startChild(name, [BUN, "-e", script], process.env as Record<string, string>, () => {})];
  const system = {
    children,
    async restart(childName: string) {
      const index = children.findIndex((child) => child.name === childName);
      const child = startChild(childName, [BUN, "-e", next()], process.env as Record<string, string>, () => {});
      children[index] = child;
      const early = await Promise.race([child.exited.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 300))]);
      if (early) throw new Error(`${childName} exited before it was ready`);
      return child;
    },
    async stop() {
      await Promise.all(children.map((child) => stopChild(child)));
    },
  } as unknown as RunningSystem;
  return system;
}

async function until(events: SupervisionEvent[], count: number, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (events.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return events;
}

describe("supervising processes", () => {
  test("when a process dies, then it is reported and started again after the first wait, and the new one is watched", async () => {
    const events: SupervisionEvent[] = [];
    const system = systemOf("pages", "setTimeout(() => process.exit(3), 100)", () => "setInterval(() => {}, 1000)");
    const supervisor = supervise(system, (event) => events.push(event), { initialMs: 50, maxMs: 1000, stableMs: 60_000 });
    await until(events, 2);
    supervisor.stop();
    expect(events[0]).toEqual({ kind: "exited", name: "pages", code: 3, signal: null, restartInMs: 50 });
    expect(events[1]).toMatchObject({ kind: "restarted", name: "pages" });
    expect(isRunning(system.children[0]!)).toBe(true);
    await system.stop();
  });

  test("when a process keeps failing to start, then each wait doubles up to the maximum", async () => {
    const events: SupervisionEvent[] = [];
    const system = systemOf("calendar", "process.exit(1)", () => "process.exit(1)");
    const supervisor = supervise(system, (event) => events.push(event), { initialMs: 20, maxMs: 80, stableMs: 60_000 });
    await until(events, 5);
    supervisor.stop();
    expect(events.slice(0, 5).map((event) => [event.kind, "restartInMs" in event ? event.restartInMs : 0])).toEqual([
      ["exited", 20],
      ["restart-failed", 40],
      ["restart-failed", 80],
      ["restart-failed", 80],
      ["restart-failed", 80],
    ]);
    await system.stop();
  });

  test("when supervision is stopped before the wait is over, then the process is not started again", async () => {
    const events: SupervisionEvent[] = [];
    let restarts = 0;
    const system = systemOf("gateway", "process.exit(1)", () => {
      restarts += 1;
      return "setInterval(() => {}, 1000)";
    });
    const supervisor = supervise(system, (event) => events.push(event), { initialMs: 300, maxMs: 300, stableMs: 60_000 });
    await until(events, 1);
    supervisor.stop();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(events.map((event) => event.kind)).toEqual(["exited"]);
    expect(restarts).toBe(0);
    await system.stop();
  });
});

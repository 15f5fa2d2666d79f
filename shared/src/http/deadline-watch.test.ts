import { describe, expect, test } from "bun:test";
import { settleWithin, watchDeadline } from "./deadline-watch";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("watching deadlines with one timer", () => {
  test("when deadlines arrive out of order, then each is called at its own instant, earliest first", async () => {
    const start = performance.now();
    const calls: [string, number][] = [];
    const record = (name: string) => () => calls.push([name, performance.now() - start]);
    watchDeadline(start + 60, record("60"));
    watchDeadline(start + 20, record("20"));
    watchDeadline(start + 40, record("40"));
    watchDeadline(start + 40, record("40 again"));
    await sleep(100);
    expect(calls.map(([name]) => name)).toEqual(["20", "40", "40 again", "60"]);
    for (const [name, at] of calls) expect(at).toBeGreaterThanOrEqual(Number.parseInt(name) - 1);
  });

  test("when a watch is cancelled, then it is never called, wherever it stood, and cancelling twice is harmless", async () => {
    const start = performance.now();
    const calls: string[] = [];
    const first = watchDeadline(start + 20, () => calls.push("first"));
    const middle = watchDeadline(start + 30, () => calls.push("middle"));
    watchDeadline(start + 40, () => calls.push("kept"));
    const last = watchDeadline(start + 50, () => calls.push("last"));
    first();
    middle();
    last();
    last();
    await sleep(80);
    expect(calls).toEqual(["kept"]);
  });

  test("when the earliest watch is cancelled, then the next is still called on time", async () => {
    const start = performance.now();
    let calledAt: number | undefined;
    const early = watchDeadline(start + 10, () => {});
    watchDeadline(start + 30, () => (calledAt = performance.now() - start));
    early();
    await sleep(60);
    expect(calledAt).toBeGreaterThanOrEqual(29);
    expect(calledAt).toBeLessThan(55);
  });

  test("when a watch is already past due, then it is called at once", async () => {
    let called = false;
    watchDeadline(performance.now() - 5, () => (called = true));
    await sleep(5);
    expect(called).toBe(true);
  });
});

describe("a bound on a call, when this process itself was stalled", () => {
  test("when the process did not run past the bound while the answer came in, then the answer wins over the timeout", async () => {
    // A peer that answers at once: its answer is in the socket before the bound, while this process is busy.
    const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: (socket) => void socket.write("pong") } });
    let answered!: () => void;
    const answer = new Promise<string>((resolve) => (answered = () => resolve("answered")));
    const client = await Bun.connect({ hostname: "127.0.0.1", port: server.port, socket: { data: () => answered() } });
    try {
      const bounded = settleWithin(answer, 50, () => new Error("timed out"));
      client.write("ping");
      // Stalled, as a paused or throttled process is: the bound passes and the answer arrives meanwhile.
      const until = performance.now() + 200;
      while (performance.now() < until) {}
      expect(await bounded.catch((error: Error) => error.message)).toBe("answered");
    } finally {
      client.end();
      server.stop(true);
    }
  });
});

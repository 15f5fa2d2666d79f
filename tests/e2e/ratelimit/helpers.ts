import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { Redis } from "ioredis";
import type { ApiResponse } from "../../harness/http";
import { freePortBlock } from "../../harness/ports";

export const withRedis = Boolean(process.env.REDIS_URL);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** If the current clock minute has fewer than `minSecondsLeft` seconds left, waits until just after it ends. */
export async function freshWindow(minSecondsLeft: number): Promise<void> {
  const left = 60 - ((Date.now() / 1000) % 60);
  if (left < minSecondsLeft) await sleep(left * 1000 + 250);
}

export function rateLimitHeadersOf(response: ApiResponse) {
  const number = (name: string) => (response.headers.has(name) ? Number(response.headers.get(name)) : undefined);
  return {
    limit: number("x-ratelimit-limit"),
    remaining: number("x-ratelimit-remaining"),
    reset: number("x-ratelimit-reset"),
    retryAfter: number("retry-after"),
  };
}

/** REDIS_URL with a database of its own, so counters shared by address (auth failures) do not meet other suites'. */
export function redisUrlWithDatabase(database: number): string {
  const url = new URL(process.env.REDIS_URL!);
  url.pathname = `/${database}`;
  return url.toString();
}

export const hasRedisServer = spawnSync("redis-server", ["--version"]).status === 0;

/** A throwaway redis-server on its own port, stopped and started again by the fault tests; `args` are extra server options. */
export async function throwawayRedis(args: string[] = []) {
  const port = await freePortBlock(1);
  let child: ChildProcess | undefined;
  const client = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 200 });
  client.on("error", () => {});
  // Never outlives the test run, even when a hook timed out before `dispose`.
  process.on("exit", () => child?.kill("SIGKILL"));
  const server = {
    port,
    url: `redis://127.0.0.1:${port}`,
    client,
    async start() {
      child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...args], { stdio: "ignore" });
      const deadline = Date.now() + 10_000;
      for (;;) {
        const probe = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        probe.on("error", () => {});
        try {
          await probe.connect();
          if ((await probe.ping()) === "PONG") return;
        } catch {
          if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start`);
          await sleep(50);
        } finally {
          probe.disconnect();
        }
      }
    },
    /** Kills it abruptly, as a crashed or unreachable Redis would look. */
    async stop() {
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((resolve) => child!.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    },
    /** Freezes it (SIGSTOP): connections stay open but nothing answers, as with a stalled Redis. */
    pause() {
      child?.kill("SIGSTOP");
    },
    resume() {
      child?.kill("SIGCONT");
    },
    async dispose() {
      server.resume();
      client.disconnect();
      await server.stop();
    },
  };
  return server;
}

/** Sends requests `concurrency` at a time until `until()` is true, recording statuses and latencies. */
export async function load(send: () => Promise<ApiResponse>, concurrency: number, until: () => boolean) {
  const results: { status: number; ms: number; startedAt: number; at: number }[] = [];
  const worker = async () => {
    while (!until()) {
      const startedAt = Date.now();
      const started = performance.now();
      const response = await send();
      results.push({ status: response.status, ms: performance.now() - started, startedAt, at: Date.now() });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

/**
 * `bun bench/profile/hop-ladder.ts`: section 1's setup (the cheap upstream,
 * 50 connections) with the rungs between the bare Bun proxy and the gateway,
 * each in a process of its own, rounds interleaved; req/s and the process's
 * CPU µs a request:
 * - `proxy`: the bare proxy of section 1 (`Bun.serve` and `fetch`);
 * - `relay`: the least JavaScript can do over Bun's TCP sockets (one read and
 *   one write each way, the upstream answer framed by its Content-Length);
 * - `hop`: our HTTP/1.1 server and client (shared/src/runtime/http1/) with
 *   nothing between them;
 * - `hop-headers`: the same, carrying the gateway's headers both ways (a
 *   900-byte principal, a request id, the budget; the rate-limit headers);
 * - `hop-heap`: that, in a process holding 400,000 small objects and making
 *   20 more a request: what a larger heap costs the same work.
 * The gateway itself is section 1 (`npm run bench -- gateway-cost`).
 * RUNGS picks some ("proxy,hop"), ROUNDS (3) runs of SECONDS (6).
 */
import { listenHttp1, bunRuntime } from "@ws/shared/runtime/bun";
import { PlainAnswer } from "@ws/shared";
import { REPO_ROOT, startChild, stopChild, waitUntilOk, type Child } from "../../scripts/system/processes";
import { freePortBlock } from "../../tests/harness/ports";
import { load, median, ratio } from "../load";
import { cpuSeconds } from "../machine";
import { startCheapUpstream } from "../system";

declare const Bun: {
  listen(options: Record<string, unknown>): unknown;
  connect(options: Record<string, unknown>): Promise<RelaySocket>;
};
interface RelaySocket {
  write(bytes: Uint8Array): number;
  data: { client: RelaySocket | undefined; need: number; got: number };
}

const PAGE_PATH = "/v1/new-page/0190d6a0-0000-7000-8000-000000000000";
const RUNGS = (process.env.RUNGS ?? "proxy,relay,hop,hop-headers,hop-heap").split(",");

if (process.env.RUNG) serveRung(process.env.RUNG, Number(process.env.PORT), process.env.UPSTREAM_URL!);
else await measure();

function serveRung(rung: string, port: number, origin: string): void {
  process.on("SIGTERM", () => process.exit(0));
  if (rung === "relay") return relay(port, Number(new URL(origin).port));
  const headers = rung !== "hop";
  if (rung === "hop-heap") {
    (globalThis as { retained?: unknown }).retained = Array.from({ length: 400_000 }, (_, i) => ({ i, name: `item-${i}`, tags: [i, i + 1] }));
  }
  const principal = "e".repeat(900);
  listenHttp1({
    port,
    hostname: "127.0.0.1",
    handler: {
      incoming: async (request) => {
        if (rung === "hop-heap") (globalThis as { last?: unknown }).last = Array.from({ length: 20 }, (_, i) => ({ i, text: `g${i}-${Math.random()}` }));
        const forwarded: [string, string][] = [];
        if (headers) {
          request.headers.forEach((value, name) => {
            if (name !== "authorization" && name !== "host") forwarded.push([name, value]);
          });
          forwarded.push(["x-principal", principal + Math.random()], ["x-request-id", crypto.randomUUID()], ["x-request-budget-ms", "9000"]);
        }
        const answer = await bunRuntime.sendUpstream({ origin, method: "GET", pathAndQuery: PAGE_PATH, headers: forwarded, body: null, deadline: performance.now() + 10_000 });
        const fields = headers ? [...answer.headers, ["x-ratelimit-limit", "1000"], ["x-ratelimit-remaining", "999"], ["x-ratelimit-reset", "1700000000"], ["x-request-id", crypto.randomUUID()]] : answer.headers;
        return new PlainAnswer(answer.status, fields as [string, string][], answer.body as Uint8Array<ArrayBuffer>);
      },
    },
  });
}

/** Each client request (one read) goes whole to a pooled upstream connection; the answer goes back as it comes. */
function relay(port: number, upstreamPort: number): void {
  const idle: RelaySocket[] = [];
  const upstream = async (): Promise<RelaySocket> =>
    idle.pop() ??
    Bun.connect({
      hostname: "127.0.0.1",
      port: upstreamPort,
      data: { client: undefined, need: -1, got: 0 },
      socket: {
        open: (socket: { setNoDelay(on: boolean): void }) => socket.setNoDelay(true),
        data(socket: RelaySocket, chunk: Buffer) {
          const state = socket.data;
          if (state.need < 0) {
            const at = chunk.indexOf("ontent-length: ");
            state.need = chunk.indexOf("\r\n\r\n") + 4 + Number(chunk.toString("latin1", at + 15, chunk.indexOf("\r\n", at)));
            state.got = 0;
          }
          state.got += chunk.length;
          state.client!.write(chunk);
          if (state.got >= state.need) {
            state.need = -1;
            state.client = undefined;
            idle.push(socket);
          }
        },
        close(socket: RelaySocket) {
          const at = idle.indexOf(socket);
          if (at !== -1) idle.splice(at, 1);
        },
        error() {},
      },
    });
  Bun.listen({
    hostname: "127.0.0.1",
    port,
    socket: {
      async data(client: RelaySocket, chunk: Buffer) {
        const socket = await upstream();
        socket.data.client = client;
        socket.write(chunk);
      },
      close() {},
      error() {},
    },
  });
}

async function measure(): Promise<void> {
  const ROUNDS = Number(process.env.ROUNDS ?? 3);
  const SECONDS = Number(process.env.SECONDS ?? 6);
  const ports = await freePortBlock(RUNGS.length + 1);
  const children: Child[] = [];
  try {
    const { child: upstream, url: upstreamUrl } = await startCheapUpstream(ports);
    children.push(upstream);
    const rungs = RUNGS.map((rung, i) => {
      const script = rung === "proxy" ? `${REPO_ROOT}bench/floor-proxy.ts` : import.meta.path;
      const env = { ...(process.env as Record<string, string>), RUNG: rung, PORT: String(ports + 1 + i), UPSTREAM_URL: upstreamUrl };
      const child = startChild(rung, [`${REPO_ROOT}node_modules/.bin/bun`, "--smol", script], env, (name, line) => console.log(`[${name}] ${line}`));
      children.push(child);
      return { rung, child, url: `http://127.0.0.1:${ports + 1 + i}${PAGE_PATH}`, rps: [] as number[], us: [] as number[] };
    });
    const headers = { authorization: "Bearer wsk_live_0123456789abcdefghijklmnopqrstuvwxyzABCDEF" };
    for (const rung of rungs) {
      await waitUntilOk(rung.url, rung.child, 10_000);
      await load({ url: rung.url, headers, connections: 50, duration: 4 });
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const rung of rungs) {
        const before = cpuSeconds(rung.child.process.pid!);
        const run = await load({ url: rung.url, headers, connections: 50, duration: SECONDS });
        rung.rps.push(Math.round(run.rps));
        rung.us.push(Math.round(((cpuSeconds(rung.child.process.pid!) - before) / (run.rps * SECONDS)) * 1e7) / 10);
      }
    }
    const base = median(rungs[0]!.rps);
    console.log(`| rung | req/s (rounds) | CPU µs a request (rounds) | req/s against ${rungs[0]!.rung} |\n|---|---|---|---:|`);
    for (const rung of rungs) console.log(`| ${rung.rung} | ${rung.rps.join(", ")} | ${rung.us.join(", ")} | ${ratio(median(rung.rps), base)} |`);
  } finally {
    for (const child of children) await stopChild(child);
  }
}

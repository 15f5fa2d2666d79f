/**
 * `bun bench/profile/http-server.ts`: what the gateway's HTTP/1.1 server
 * (shared/src/runtime/http1/) costs against Bun.serve for the same answer: each
 * serves a page-sized JSON with the headers the gateway sends, in a process of
 * its own, under 50 autocannon connections; CPU µs per request of the server
 * process (every thread, /proc), ROUNDS (3) interleaved runs of 4 s.
 */
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import { listenHttp1 } from "@ws/shared/runtime/bun";
import { REPO_ROOT } from "../../scripts/system/processes";
import { freePortBlock } from "../../tests/harness/ports";
import { processCpuSeconds } from "../sections/cpu";

declare const Bun: { serve(options: Record<string, unknown>): unknown; sleep(ms: number): Promise<void> };

if (process.env.HTTP_SERVER_KIND) {
  const body = new TextEncoder().encode(JSON.stringify({ id: crypto.randomUUID(), title: "x".repeat(40), content: "y".repeat(200), team_id: null, created_at: new Date().toISOString() }));
  const answer = async () =>
    new Response(body, {
      headers: {
        "content-type": "application/json", "content-length": String(body.byteLength), etag: '"abc"',
        "x-ratelimit-limit": "100", "x-ratelimit-remaining": "99", "x-ratelimit-reset": "1700000000", "x-request-id": crypto.randomUUID(),
      },
    });
  const port = Number(process.env.PORT);
  if (process.env.HTTP_SERVER_KIND === "Bun.serve") Bun.serve({ port, hostname: "127.0.0.1", fetch: answer });
  else listenHttp1({ port, hostname: "127.0.0.1", handler: { fetch: answer } });
  process.on("SIGTERM", () => process.exit(0));
} else {
  const ROUNDS = Number(process.env.ROUNDS ?? 3);
  const cpuMicros = (pid: number) => processCpuSeconds(pid) * 1e6;
  const run = (url: string, duration: number) =>
    new Promise<number>((resolve, reject) =>
      autocannon({ url, connections: 50, duration, headers: { authorization: "Bearer wsk_live_0123456789abcdefghijklmnopqrstuvwxyzABCDEF", accept: "*/*" } }, (error, result) =>
        error ? reject(error) : resolve(result.requests.total),
      ),
    );
  const base = await freePortBlock(2);
  const servers = ["Bun.serve", "http1 (ours)"].map((kind, i) => {
    const child = spawn(`${REPO_ROOT}node_modules/.bin/bun`, [import.meta.path], { env: { ...process.env, HTTP_SERVER_KIND: kind, PORT: String(base + i) }, stdio: "inherit" });
    return { kind, child, url: `http://127.0.0.1:${base + i}/v1/new-page/x`, figures: [] as number[] };
  });
  try {
    await Bun.sleep(1000);
    for (const server of servers) await run(server.url, 2);
    for (let round = 0; round < ROUNDS; round++) {
      for (const server of servers) {
        const before = cpuMicros(server.child.pid!);
        const requests = await run(server.url, 4);
        server.figures.push((cpuMicros(server.child.pid!) - before) / requests);
      }
    }
    for (const server of servers) console.log(`${server.kind.padEnd(14)} ${server.figures.map((f) => f.toFixed(1)).join(", ")} µs of CPU per request`);
  } finally {
    for (const server of servers) server.child.kill("SIGTERM");
  }
}

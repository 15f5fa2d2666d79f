/**
 * `bun bench/profile/threads.ts`: CPU µs per request of every thread of the
 * gateway and the pages service (grouped by the thread's name), under the
 * floor section's load (`GET /v1/new-page/{id}`, 50 connections), on the system
 * as `npm start` runs it and on the floor's two apps (bench/floor/), rounds
 * interleaved. A JavaScript profile sees the main thread only; this
 * shows what the others cost: Bun's HTTP client thread behind `fetch`, the
 * garbage collector's helpers, the timers of the runtime.
 * Needs DATABASE_URL and REDIS_URL. ROUNDS (3) runs of SECONDS (8) each.
 */
import { readdirSync, readFileSync } from "node:fs";
import { REPO_ROOT, startChild, stopChild, waitUntilOk } from "../../scripts/system/processes";
import { freePortBlock } from "../../tests/harness/ports";
import { load } from "../load";
import { benchPage, startThroughLauncher } from "../sections/launched-system";
import { testStorage } from "../../tests/harness/database";

const BUN = `${REPO_ROOT}node_modules/.bin/bun`;
const quiet = () => {};
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 8);

/** CPU seconds of each thread of a process, summed by thread name (numbers in names dropped: "HTTP Client", "Heap Helper"). */
function threadCpu(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim().replace(/[\d:#-]+$/, "").trim() || "(unnamed)";
      const runNs = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      byName.set(name, (byName.get(name) ?? 0) + runNs / 1e9);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byName;
}

const storage = await testStorage();
if (!storage.databaseUrl) throw new Error("needs DATABASE_URL");
const stops: (() => Promise<unknown>)[] = [];
const system = await startThroughLauncher({ databaseUrl: storage.databaseUrl, redisUrl: process.env.REDIS_URL!, env: { LOG_LEVEL: "info", RATE_LIMIT_PER_MINUTE: "100000000" } });
try {
  const { headers, path } = await benchPage(system);
  const url = system.gatewayUrl + path;
  const ports = await freePortBlock(2);
  const floorPages = startChild("floor-pages", [BUN, `${REPO_ROOT}bench/floor/pages.ts`], { ...(process.env as Record<string, string>), PORT: String(ports + 1), DATABASE_URL: storage.databaseUrl, POOL_MAX: "50" }, quiet);
  const floorGateway = startChild("floor-gateway", [BUN, `${REPO_ROOT}bench/floor/gateway.ts`], { ...(process.env as Record<string, string>), PORT: String(ports), PAGES_URL: `http://127.0.0.1:${ports + 1}` }, quiet);
  stops.push(() => stopChild(floorPages), () => stopChild(floorGateway));
  const floorUrl = `http://127.0.0.1:${ports}${new URL(url).pathname}`;
  await waitUntilOk(floorUrl, floorGateway, 20_000);
  const sides = [
    { side: "system", url, headers, processes: { gateway: system.pids.gateway, pages: system.pids.pages } },
    { side: "floor", url: floorUrl, headers: {}, processes: { gateway: floorGateway.process.pid!, pages: floorPages.process.pid! } },
  ];
  for (const side of sides) await load({ url: side.url, headers: side.headers, duration: 5 });
  const totals = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) for (const { side, url, headers, processes } of sides) {
    const before = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, threadCpu(pid)]));
    const figures = await load({ url, headers, duration: SECONDS });
    for (const [process, pid] of Object.entries(processes)) {
      const name = `${side} ${process}`;
      const after = threadCpu(pid);
      let sum = 0;
      for (const [thread, seconds] of after) {
        const used = seconds - (before[process]!.get(thread) ?? 0);
        sum += used;
        const key = `${name}\t${thread}`;
        totals.set(key, [...(totals.get(key) ?? []), (used * 1e6) / figures.requests]);
      }
      totals.set(`${name}\t(all threads)`, [...(totals.get(`${name}\t(all threads)`) ?? []), (sum * 1e6) / figures.requests]);
    }
    console.error(`round ${round + 1}, ${side}: ${figures.rps} req/s`);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log("| process | thread | µs per request (median) | rounds |\n|---|---|---:|---|");
  for (const [key, values] of [...totals].sort()) {
    if (median(values) < 0.5) continue;
    const [name, thread] = key.split("\t");
    console.log(`| ${name} | ${thread} | ${median(values).toFixed(1)} | ${values.map((v) => v.toFixed(1)).join(", ")} |`);
  }
} finally {
  for (const stop of stops) await stop();
  await system.stop();
  await storage.dispose();
}
process.exit(0);

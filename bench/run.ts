/**
 * `npm run bench`: what the gateway costs, the full path, its stability, list
 * queries at scale, memory, rate-limit exactness and memory under abuse, on real
 * Postgres and Redis. Prints a table and writes bench/results/latest.json.
 * `BENCH_SECTIONS=memory-abuse npm run bench` runs the memory-under-abuse
 * section alone (and writes bench/results/memory-abuse.json).
 */
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { randomUUID } from "node:crypto";
import postgres from "postgres";
import { PERMISSION_LEVELS, signPrincipal, signingKeyFrom, type Principal } from "@ws/shared";
import {
  freePortBlock,
  REPO_ROOT,
  throwawayStorage as testStorage,
  type RunningSystem,
  type SeededWorkspace as Tenant,
  type ThrowawayStorage as TestStorage,
} from "../scripts/system";
import { load, ratio, sequentialLatency, type LoadFigures } from "./load";
import { describeMachine, memorySampler } from "./machine";
import { growPages, LIST_QUERIES } from "./scale";
import { markdownReport } from "./report";
import { requestedSections, runSections, runSectionsAlone, SECTIONS, type SectionContext } from "./sections";
import { gatewayCostSection } from "./sections/gateway-cost";
import { benchTenant, startBenchSystem } from "./system";

process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/test";
process.env.REDIS_URL ??= "redis://127.0.0.1:6379";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const RUN_SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const STABILITY_SECONDS = 60;
const SIZES = [10_000, 100_000, 1_000_000];
const started = performance.now();
const log = (line: string) => console.log(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`);

const cleanups: (() => Promise<unknown>)[] = [];
/** Stops what was started since `mark`, newest first. */
async function cleanUp(mark = 0) {
  while (cleanups.length > mark) await cleanups.pop()!().catch((error) => console.error("cleanup failed:", error));
}

async function startSystem(storage: TestStorage, replicas: number, ports: number): Promise<RunningSystem> {
  const system = await startBenchSystem(storage, replicas, ports);
  cleanups.push(() => system.stop());
  return system;
}

function principalFor(workspaceId: string, memberId: string): Principal {
  return { workspace_id: workspaceId, member_id: memberId, key_id: randomUUID(), scopes: [...PERMISSION_LEVELS.docs.full], target_team_ids: null, visible_team_ids: [], request_id: randomUUID() };
}

const summary = (figures: LoadFigures) => ({ ...figures, per_second: undefined });

async function fullSystem(storage: TestStorage) {
  const mark = cleanups.length;
  const replicas = 3;
  const ports = await freePortBlock(2 * replicas + 2);
  const system = await startSystem(storage, replicas, ports);
  const gateway = system.gatewayUrls[0]!;
  const owner = await benchTenant(system);
  const key = await owner.key();
  const headers = { authorization: `Bearer ${key}` };
  const created = await fetch(`${gateway}/v1/new-page`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ title: "Bench page", content: "A page read over and over by the benchmark." }),
  });
  if (created.status !== 201) throw new Error(`creating the page answered ${created.status}: ${await created.text()}`);
  const pageId = ((await created.json()) as { id: string }).id;
  const path = `/v1/new-page/${pageId}`;
  const signingKey = signingKeyFrom(system.signingKey);
  const directHeaders = async (pathname: string) => ({
    "x-workspace-principal": await signPrincipal(principalFor(owner.workspaceId, owner.ownerId), { method: "GET", path: pathname }, signingKey),
  });
  const direct = await fetch(system.pagesUrl + path, { headers: await directHeaders(path) });
  if (direct.status !== 200) throw new Error(`pages answered ${direct.status} to a signed principal: ${await direct.text()}`);

  const processes = system.children.filter((child) => ["gateway-0", "pages", "calendar"].includes(child.name));
  const memory = memorySampler(processes.map((child) => ({ name: child.name === "gateway-0" ? "gateway" : child.name, pid: child.process.pid! })));
  const every = () => memory.sample();

  log("full path: gateway and direct, interleaved");
  await load({ url: gateway + path, headers, connections: CONNECTIONS, duration: 2, every });
  const viaGateway: LoadFigures[] = [];
  const viaDirect: LoadFigures[] = [];
  for (let round = 0; round < 2; round++) {
    viaGateway.push(await load({ url: gateway + path, headers, connections: CONNECTIONS, duration: RUN_SECONDS, every }));
    viaDirect.push(await load({ url: system.pagesUrl + path, headers: await directHeaders(path), connections: CONNECTIONS, duration: RUN_SECONDS, every }));
  }
  const best = (runs: LoadFigures[]) => {
    const sorted = [...runs].sort((x, y) => x.rps - y.rps);
    return summary(sorted[Math.floor(sorted.length / 2)]!);
  };
  const fullPath = { connections: CONNECTIONS, gateway: best(viaGateway), direct: best(viaDirect), runs: { gateway: viaGateway.map((r) => r.rps), direct: viaDirect.map((r) => r.rps) } };
  log(`full path: gateway ${fullPath.gateway.rps} req/s, direct ${fullPath.direct.rps} req/s`);

  log(`stability: ${STABILITY_SECONDS} s through the gateway`);
  // The machine is shared: the run-queue length each second tells drift from outside apart from decay inside.
  const loadAverages: number[] = [];
  const long = await load({
    url: gateway + path,
    headers,
    connections: CONNECTIONS,
    duration: STABILITY_SECONDS,
    every: () => {
      every();
      loadAverages.push(Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]));
    },
  });
  const first = long.per_second.slice(0, 10).reduce((sum, n) => sum + n, 0) / 10;
  const last = long.per_second.slice(-10).reduce((sum, n) => sum + n, 0) / 10;
  const stability = { seconds: STABILITY_SECONDS, rps: long.rps, p50_ms: long.p50_ms, p99_ms: long.p99_ms, non2xx: long.non2xx, errors: long.errors, first_10s_rps: first, last_10s_rps: last, ratio: ratio(last, first), per_second: long.per_second, load_average_1m: loadAverages };
  log(`stability: first 10 s ${first} req/s, last 10 s ${last} req/s`);
  const peaks = memory.peaks();

  const exactness = await exactnessBurst(system, owner);
  const scale = await scaleLists(storage, system, owner, directHeaders);
  await cleanUp(mark);
  return { fullPath, stability, memory: peaks, exactness, scale };
}

async function exactnessBurst(system: RunningSystem, owner: Tenant) {
  const limit = 500;
  const total = 1000;
  const key = await owner.key({ rate_limit_per_minute: limit });
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 50_000) {
    log(`exactness: waiting ${((60_000 - intoWindow) / 1000).toFixed(1)} s for the next window`);
    await Bun.sleep(60_000 - intoWindow + 200);
  }
  log(`exactness: ${total} concurrent requests over ${system.gatewayUrls.length} replicas, limit ${limit}`);
  const statuses = await Promise.all(
    Array.from({ length: total }, (_, i) =>
      fetch(`${system.gatewayUrls[i % system.gatewayUrls.length]}/v1/new-page/?per_page=1`, { headers: { authorization: `Bearer ${key}` } })
        .then(async (response) => {
          await response.arrayBuffer();
          return response.status;
        })
        .catch(() => 0),
    ),
  );
  const count = (status: number) => statuses.filter((s) => s === status).length;
  const succeeded = count(200);
  return {
    replicas: system.gatewayUrls.length,
    limit,
    requests: total,
    succeeded,
    rate_limited: count(429),
    other: total - succeeded - count(429),
    over_admissions: Math.max(0, succeeded - limit),
    under_admissions: Math.max(0, limit - succeeded),
  };
}

async function scaleLists(
  storage: TestStorage,
  system: RunningSystem,
  owner: Tenant,
  directHeaders: (pathname: string) => Promise<Record<string, string>>,
) {
  const sql = postgres(storage.databaseUrl!, { max: 1, onnotice: () => {} });
  try {
    const results: { pages: number; seed_seconds: number; queries: Record<string, { p50_ms: number; p95_ms: number; samples: number }> }[] = [];
    let have = 0;
    for (const size of SIZES) {
      const seedStarted = performance.now();
      await growPages(sql, owner.workspaceId, have, size);
      have = size;
      const seedSeconds = Math.round((performance.now() - seedStarted) / 100) / 10;
      log(`scale: ${size} pages (grown in ${seedSeconds} s)`);
      const queries: (typeof results)[number]["queries"] = {};
      for (const { name, query } of LIST_QUERIES) {
        const pathname = "/v1/new-page/";
        // A fresh principal per query: it lives 60 s.
        const headers = await directHeaders(pathname);
        queries[name] = await sequentialLatency(() => fetch(`${system.pagesUrl}${pathname}?${query}`, { headers }), { budgetMs: 2500, maxRequests: 200, minRequests: 20 });
      }
      results.push({ pages: size, seed_seconds: seedSeconds, queries });
    }
    const first = results[0]!;
    const last = results.at(-1)!;
    const p95Ratios = Object.fromEntries(LIST_QUERIES.map(({ name }) => [name, ratio(last.queries[name]!.p95_ms, first.queries[name]!.p95_ms)]));
    return { measured: "directly against the pages service, one request at a time, signed principal", sizes: results, p95_ratio_1m_to_10k: p95Ratios };
  } finally {
    await sql.end();
  }
}

async function main() {
  const machine = describeMachine();
  const storage = await testStorage();
  cleanups.push(() => storage.dispose());
  const probe = postgres(storage.databaseUrl!, { max: 1, onnotice: () => {} });
  machine.postgres = ((await probe`show server_version`)[0] as { server_version: string }).server_version;
  await probe.end();
  log(`machine: ${machine.nproc} × ${machine.cpu_model}, ${machine.memory_gb} GB, bun ${machine.bun}, postgres ${machine.postgres}`);
  const context: SectionContext = { storage, log, defer: (cleanup) => cleanups.push(cleanup) };
  const only = requestedSections();
  if (only) return console.log(`\n${await runSectionsAlone(only, context, { when: new Date().toISOString(), machine })}`);
  const gateway = await gatewayCostSection.run(context);
  const rest = await fullSystem(storage);
  const sections = await runSections(SECTIONS.filter((section) => section.inFullRun), context);
  const results = {
    when: new Date().toISOString(),
    machine,
    total_seconds: Math.round((performance.now() - started) / 1000),
    gateway_cost: gateway,
    full_path: rest.fullPath,
    stability: rest.stability,
    memory_mb: rest.memory,
    exactness: rest.exactness,
    scale: rest.scale,
    ...sections.results,
  };
  await mkdir(`${REPO_ROOT}bench/results`, { recursive: true });
  await writeFile(`${REPO_ROOT}bench/results/latest.json`, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\n${markdownReport(results)}\n\n${sections.report}`);
}

let failed = false;
const timer = setTimeout(() => {
  console.error("bench: over 15 minutes, giving up");
  failed = true;
  void cleanUp().then(() => process.exit(1));
}, 15 * 60_000);
try {
  await main();
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  await cleanUp();
  clearTimeout(timer);
}
process.exit(failed ? 1 : 0);

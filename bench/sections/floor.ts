/**
 * Section "floor": the real full path (`GET /v1/new-page/{id}` through the
 * gateway, started by `npm start`'s launcher, on real PostgreSQL and Redis)
 * against a hand-written floor of the same shape (bench/floor/), interleaved:
 * maximum throughput (closed loop), latency at a fixed rate (open loop at half
 * the floor's maximum), and the CPU every process on the path spends per request.
 */
import postgres from "postgres";
import { REPO_ROOT, startChild, stopChild, waitUntilOk, type Child } from "../../scripts/system/processes";
import { freePortBlock } from "../../tests/harness/ports";
import { load, median, ratio, type LoadFigures } from "../load";
import { openLoop, type OpenLoopFigures } from "../open-loop";
import { cpuPerRequest, cpuSnapshot, loadAverage, serverGroups, type ProcessGroups } from "./cpu";
import type { Section, SectionContext } from "./index";
import { benchPage, startThroughLauncher } from "./launched-system";

/** The load both the floor and the ladder sections measure under. */
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const RUN_SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_FLOOR_ROUNDS ?? 3);
const OPEN_SECONDS = Number(process.env.BENCH_OPEN_SECONDS ?? 10);
const OPEN_ROUNDS = Number(process.env.BENCH_OPEN_ROUNDS ?? 2);
/** The system as deployed: request logs on. BENCH_LOG_LEVEL=warn shows what they cost. */
export const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? "info";
/** The floor's pool, 50 as the issue defines it; on a PostgreSQL shared with others, fewer may be kinder. */
export const FLOOR_POOL = process.env.BENCH_FLOOR_POOL ?? "50";
export const BUN = `${REPO_ROOT}node_modules/.bin/bun`;

/** Starts one of the floor's apps (bench/floor/) for this section, stopped when the bench ends. */
export function startFloorApp(context: SectionContext, name: string, script: string, env: Record<string, string>): Child {
  const child = startChild(name, [BUN, `${REPO_ROOT}bench/floor/${script}`], { ...(process.env as Record<string, string>), ...env }, (who, line) => console.log(`[${who}] ${line}`));
  context.defer(() => stopChild(child));
  return child;
}

/** Columns of the CPU tables, in the order a request meets them. */
export const ROLES = ["load generator", "launcher", "gateway", "pages", "calendar", "redis-server", "postgres", "postgres aux (shared)"] as const;

interface ClosedLoopRun extends Omit<LoadFigures, "per_second"> {
  cpu_us_per_request: Record<string, number>;
  load_average: number;
}
interface OpenLoopRun extends OpenLoopFigures {
  cpu_us_per_request: Record<string, number>;
  load_average: number;
}
type Kind = "floor" | "system";

export interface FloorResults {
  connections: number;
  seconds_per_run: number;
  log_level: string;
  floor_pool: number;
  closed_loop: {
    floor: { rps: number; p50_ms: number; p99_ms: number };
    system: { rps: number; p50_ms: number; p99_ms: number };
    ratio: number;
    round_ratios: number[];
    runs: Record<Kind, ClosedLoopRun[]>;
  };
  open_loop: {
    rate: number;
    seconds: number;
    floor: OpenLoopFigures;
    system: OpenLoopFigures;
    p99_ratio: number;
    round_p99_ratios: number[];
    runs: Record<Kind, OpenLoopRun[]>;
  };
  cpu_us_per_request: { closed_loop: Record<Kind, Record<string, number>>; open_loop: Record<Kind, Record<string, number>> };
  /**
   * Floor CPU per request over the full path's, at full load: the throughput
   * ratio the two would have on cores of their own when CPU bound. Steadier
   * than req/s on a shared machine, where the share of CPU the bench gets moves.
   */
  cpu_ratio: number;
}

/** Per role, the median over the runs, plus the total. */
function medianCpu(runs: { cpu_us_per_request: Record<string, number> }[]): Record<string, number> {
  const breakdown = Object.fromEntries(ROLES.map((role) => [role, median(runs.map((run) => run.cpu_us_per_request[role] ?? 0))]));
  return { ...breakdown, total: Object.values(breakdown).reduce((sum, value) => sum + value, 0) };
}

async function runFloor(context: SectionContext): Promise<FloorResults> {
  const { storage, log } = context;
  if (!storage.databaseUrl) throw new Error("the floor section needs DATABASE_URL (real PostgreSQL)");
  const redisUrl = process.env.REDIS_URL!;

  log(`floor: starting the system through npm start's launcher (LOG_LEVEL=${LOG_LEVEL})`);
  const system = await startThroughLauncher({
    databaseUrl: storage.databaseUrl,
    redisUrl,
    // High enough never to trigger: the bench measures the limiter's cost, not its refusals.
    env: { LOG_LEVEL: LOG_LEVEL, RATE_LIMIT_PER_MINUTE: "100000000" },
  });
  context.defer(() => system.stop());
  const { headers, path } = await benchPage(system);

  const ports = await freePortBlock(2);
  const floorPagesUrl = `http://127.0.0.1:${ports + 1}`;
  const floorPages = startFloorApp(context, "floor-pages", "pages.ts", { PORT: String(ports + 1), DATABASE_URL: storage.databaseUrl, POOL_MAX: FLOOR_POOL });
  const floorGateway = startFloorApp(context, "floor-gateway", "gateway.ts", { PORT: String(ports), REDIS_URL: redisUrl, PAGES_URL: floorPagesUrl });
  const floorUrl = `http://127.0.0.1:${ports}`;
  await waitUntilOk(floorPagesUrl + path, floorPages, 20_000);
  await waitUntilOk(floorUrl + path, floorGateway, 20_000);
  for (const [name, url, init] of [["floor", floorUrl + path, {}], ["system", system.gatewayUrl + path, { headers }]] as const) {
    const response = await fetch(url, init);
    const body = await response.text();
    if (response.status !== 200 || !body.includes("Bench page")) throw new Error(`${name} answered ${response.status}: ${body}`);
  }

  // Whose CPU to count. Postgres backends are this database's connections (the shared server also serves others).
  const monitor = postgres(storage.databaseUrl, { max: 1, onnotice: () => {} });
  context.defer(() => monitor.end());
  const common = await serverGroups(redisUrl, monitor);
  const groups: Record<Kind, ProcessGroups> = {
    floor: { gateway: () => [floorGateway.process.pid!], pages: () => [floorPages.process.pid!], ...common },
    system: {
      launcher: () => [system.pids.launcher],
      gateway: () => [system.pids.gateway],
      pages: () => [system.pids.pages],
      calendar: () => [system.pids.calendar],
      ...common,
    },
  };
  const urls: Record<Kind, string> = { floor: floorUrl + path, system: system.gatewayUrl + path };

  log("floor: warming up both");
  for (const kind of ["floor", "system"] as const) await load({ url: urls[kind], headers, connections: CONNECTIONS, duration: 5 });

  const closedRuns: Record<Kind, ClosedLoopRun[]> = { floor: [], system: [] };
  const closedLoop = async (kind: Kind) => {
    const load_average = loadAverage();
    const before = await cpuSnapshot({ "load generator": () => [process.pid], ...groups[kind] });
    const { per_second: _, ...figures } = await load({ url: urls[kind], headers, connections: CONNECTIONS, duration: RUN_SECONDS });
    const after = await cpuSnapshot({ "load generator": () => [process.pid], ...groups[kind] });
    closedRuns[kind].push({ ...figures, cpu_us_per_request: cpuPerRequest(before, after, figures.requests), load_average });
  };
  for (let round = 0; round < ROUNDS; round++) {
    // ABBA order: a steady drift of the shared machine weighs on both sides alike.
    for (const kind of round % 2 === 0 ? (["floor", "system"] as const) : (["system", "floor"] as const)) await closedLoop(kind);
    log(`floor round ${round + 1}: floor ${closedRuns.floor.at(-1)!.rps} req/s, system ${closedRuns.system.at(-1)!.rps} req/s`);
  }

  const rate = Math.max(1, Math.round(median(closedRuns.floor.map((run) => run.rps)) / 2));
  const openRuns: Record<Kind, OpenLoopRun[]> = { floor: [], system: [] };
  const openLoopRun = async (kind: Kind) => {
    const load_average = loadAverage();
    const before = await cpuSnapshot(groups[kind]);
    const generator = openLoop({ url: urls[kind], headers, rate, seconds: OPEN_SECONDS });
    const figures = await generator.figures;
    const after = await cpuSnapshot(groups[kind]);
    const cpu = { ...cpuPerRequest(before, after, figures.requests), "load generator": figures.generator_cpu_us_per_request };
    openRuns[kind].push({ ...figures, cpu_us_per_request: cpu, load_average });
  };
  for (let round = 0; round < OPEN_ROUNDS; round++) {
    for (const kind of round % 2 === 0 ? (["floor", "system"] as const) : (["system", "floor"] as const)) await openLoopRun(kind);
    log(`floor open loop at ${rate} req/s, round ${round + 1}: p99 floor ${openRuns.floor.at(-1)!.p99_ms} ms, system ${openRuns.system.at(-1)!.p99_ms} ms`);
  }

  const pick = (runs: ClosedLoopRun[]) => ({ rps: median(runs.map((r) => r.rps)), p50_ms: median(runs.map((r) => r.p50_ms)), p99_ms: median(runs.map((r) => r.p99_ms)) });
  const middle = (runs: OpenLoopRun[]) => {
    const { cpu_us_per_request: _, load_average: __, ...figures } = [...runs].sort((a, b) => a.p99_ms - b.p99_ms)[Math.floor((runs.length - 1) / 2)]!;
    return figures;
  };
  const cpu = {
    closed_loop: { floor: medianCpu(closedRuns.floor), system: medianCpu(closedRuns.system) },
    open_loop: { floor: medianCpu(openRuns.floor), system: medianCpu(openRuns.system) },
  };
  const roundRatios = closedRuns.system.map((run, i) => ratio(run.rps, closedRuns.floor[i]!.rps));
  const p99Ratios = openRuns.system.map((run, i) => ratio(run.p99_ms, openRuns.floor[i]!.p99_ms));
  return {
    connections: CONNECTIONS,
    seconds_per_run: RUN_SECONDS,
    log_level: LOG_LEVEL,
    floor_pool: Number(FLOOR_POOL),
    closed_loop: { floor: pick(closedRuns.floor), system: pick(closedRuns.system), ratio: median(roundRatios), round_ratios: roundRatios, runs: closedRuns },
    open_loop: { rate, seconds: OPEN_SECONDS, floor: middle(openRuns.floor), system: middle(openRuns.system), p99_ratio: Math.round(median(p99Ratios) * 1000) / 1000, round_p99_ratios: p99Ratios, runs: openRuns },
    cpu_us_per_request: cpu,
    cpu_ratio: ratio(cpu.closed_loop.floor.total!, cpu.closed_loop.system.total!),
  };
}

const mark = (met: boolean) => (met ? "met" : "NOT met");

function report(r: FloorResults): string {
  const c = r.closed_loop;
  const o = r.open_loop;
  const loads = (runs: { load_average: number }[]) => runs.map((run) => run.load_average).join(", ");
  const lines = [
    `| Floor vs full path, GET /v1/new-page/{id} (${r.connections} connections, ${r.seconds_per_run} s runs, ${c.round_ratios.length} rounds interleaved ABBA) | req/s | p50 ms | p99 ms |`,
    "|---|---:|---:|---:|",
    `| floor: Elysia + one ioredis pipeline (INCR, EXPIRE) → fetch → Elysia + postgres (pool ${r.floor_pool}) | ${c.floor.rps} | ${c.floor.p50_ms} | ${c.floor.p99_ms} |`,
    `| full path: npm start's launcher, gateway (key, Redis limit, principal, LOG_LEVEL=${r.log_level}) → pages → PostgreSQL | ${c.system.rps} | ${c.system.p50_ms} | ${c.system.p99_ms} |`,
    `| **full path / floor**, median of the rounds (${c.round_ratios.join(", ")}) | **${c.ratio}** | target ≥ 0.9 (at least 0.8): ${mark(c.ratio >= 0.9)}${c.ratio < 0.9 && c.ratio >= 0.8 ? " (0.8 met)" : ""} | |`,
    `| the same ratio from CPU per request (floor total / full path total, table below): what req/s would show on cores of their own | ${r.cpu_ratio} | | |`,
    "",
    `| Open loop at a constant ${o.rate} req/s (half the floor's maximum), ${o.seconds} s, ${o.round_p99_ratios.length} rounds; latency from each request's due time | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | non-2xx / errors | generator late p99 ms |`,
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...(["floor", "system"] as const).map(
      (kind) =>
        `| ${kind === "floor" ? "floor" : "full path"} (round with the median p99) | ${o[kind].p50_ms} | ${o[kind].p90_ms} | ${o[kind].p99_ms} | ${o[kind].p999_ms} | ${o[kind].max_ms} | ${o[kind].non2xx} / ${o[kind].errors} | ${o[kind].send_lag_p99_ms} |`,
    ),
    `| **p99 full path / floor**, median of the rounds (${o.round_p99_ratios.join(", ")}) | | | **${o.p99_ratio}** | target ≤ 1.5: ${mark(o.p99_ratio <= 1.5)} | | | |`,
    "",
  ];
  for (const [mode, title] of [["closed_loop", `at full load (closed loop, median of rounds; load average ${loads(c.runs.floor)} / ${loads(c.runs.system)})`], ["open_loop", `at ${o.rate} req/s (open loop)`]] as const) {
    const cpu = r.cpu_us_per_request[mode];
    lines.push(`| CPU µs per request ${title} | ${ROLES.join(" | ")} | total |`);
    lines.push(`|---|${ROLES.map(() => "---:").join("|")}|---:|`);
    for (const kind of ["floor", "system"] as const) lines.push(`| ${kind === "floor" ? "floor" : "full path"} | ${[...ROLES, "total"].map((role) => cpu[kind][role] ?? 0).join(" | ")} |`);
    lines.push("");
  }
  lines.push(
    "CPU: µs of CPU per request from /proc (every thread's run time), summed per role; for the floor, gateway and pages are its two apps. postgres = this benchmark database's backends; redis-server and postgres aux (checkpointer, WAL writer, …) are shared with whatever else runs on the machine.",
  );
  return lines.join("\n");
}

export const floorSection: Section<FloorResults> = { name: "floor", inFullRun: true, run: runFloor, report };

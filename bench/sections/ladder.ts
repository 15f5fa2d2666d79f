/**
 * Section "ladder" (only when named): where the full path loses against the
 * floor, one step at a time, each step measured under the same closed-loop
 * load as the floor section (GET /v1/new-page/{id}, rounds interleaved):
 *
 *   1. the floor (bench/floor/: its gateway → its pages app);
 *   2. the floor's gateway in front of the real pages service (the principal it
 *      needs signed every 20 s, not per request): what our service costs;
 *   3. the real gateway with its in-process limiter (no REDIS_URL) → the pages
 *      service: what the gateway costs besides Redis;
 *   4. the full path (gateway on Redis → pages service): what the exact count
 *      across replicas and the credential epoch in Redis cost.
 *
 * Each step's throughput over the floor's, and the CPU every process spent per
 * request, so the gap splits into the service's share, the gateway's and Redis's.
 */
import postgres from "postgres";
import { randomUUID } from "node:crypto";
import { PERMISSION_LEVELS, type Principal } from "@ws/shared";
import { waitUntilOk } from "../../scripts/system/processes";
import { freePortBlock } from "../../tests/harness/ports";
import { load, median, ratio } from "../load";
import { cpuPerRequest, cpuSnapshot, serverGroups, type ProcessGroups } from "./cpu";
import { CONNECTIONS, FLOOR_POOL, LOG_LEVEL, RUN_SECONDS, startFloorApp } from "./floor";
import type { Section, SectionContext } from "./index";
import { benchPage, startThroughLauncher, type LaunchedSystem } from "./launched-system";

const ROUNDS = Number(process.env.BENCH_LADDER_ROUNDS ?? 3);

const LADDER_ROLES = ["load generator", "launcher", "front", "pages", "redis-server", "postgres"] as const;

interface Step {
  name: string;
  label: string;
  url: string;
  headers: Record<string, string>;
  groups: ProcessGroups;
}

interface StepRun {
  rps: number;
  p99_ms: number;
  non2xx: number;
  cpu_us_per_request: Record<string, number>;
}

export interface LadderResults {
  connections: number;
  seconds_per_run: number;
  rounds: number;
  log_level: string;
  steps: {
    name: string;
    label: string;
    rps: number;
    p99_ms: number;
    /** The median over the rounds of this step's req/s over the floor's in the same round. */
    ratio_to_floor: number;
    round_ratios: number[];
    /** Per role, the median over the rounds, and their total. */
    cpu_us_per_request: Record<string, number>;
    runs: StepRun[];
  }[];
}

async function runLadder(context: SectionContext): Promise<LadderResults> {
  const { storage, log } = context;
  if (!storage.databaseUrl) throw new Error("the ladder section needs DATABASE_URL (real PostgreSQL)");
  const redisUrl = process.env.REDIS_URL!;
  const systemEnv = { LOG_LEVEL, RATE_LIMIT_PER_MINUTE: "100000000" };

  log(`ladder: starting the system twice through npm start's launcher (with Redis, and with the in-process limiter; LOG_LEVEL=${LOG_LEVEL})`);
  const full = await startThroughLauncher({ databaseUrl: storage.databaseUrl, redisUrl, env: systemEnv });
  context.defer(() => full.stop());
  // An empty REDIS_URL is unset to the launcher: one replica, its limiter and credential epochs in memory.
  const local = await startThroughLauncher({ databaseUrl: storage.databaseUrl, redisUrl: "", env: systemEnv });
  context.defer(() => local.stop());
  const fullPage = await benchPage(full);
  const localPage = await benchPage(local);

  const monitor = postgres(storage.databaseUrl, { max: 1, onnotice: () => {} });
  context.defer(() => monitor.end());
  const pageId = fullPage.path.slice(fullPage.path.lastIndexOf("/") + 1);
  const [page] = await monitor<{ workspace_id: string }[]>`select workspace_id from pages where id = ${pageId}`;
  if (!page) throw new Error(`the bench page ${pageId} is not in the database`);
  const principal: Principal = {
    workspace_id: page.workspace_id,
    member_id: randomUUID(),
    key_id: randomUUID(),
    scopes: [...PERMISSION_LEVELS.docs.full],
    target_team_ids: null,
    visible_team_ids: [],
    request_id: randomUUID(),
  };

  const ports = await freePortBlock(3);
  const floorPagesUrl = `http://127.0.0.1:${ports + 1}`;
  const floorPages = startFloorApp(context, "floor-pages", "pages.ts", { PORT: String(ports + 1), DATABASE_URL: storage.databaseUrl, POOL_MAX: FLOOR_POOL });
  const floorGateway = startFloorApp(context, "floor-gateway", "gateway.ts", { PORT: String(ports), REDIS_URL: redisUrl, PAGES_URL: floorPagesUrl });
  const frontOfPages = startFloorApp(context, "floor-gateway-to-pages", "gateway.ts", {
    PORT: String(ports + 2),
    REDIS_URL: redisUrl,
    PAGES_URL: full.pagesUrl,
    PRINCIPAL: JSON.stringify(principal),
    INTERNAL_SIGNING_KEY: full.signingKey,
  });
  await waitUntilOk(floorPagesUrl + fullPage.path, floorPages, 20_000);
  await waitUntilOk(`http://127.0.0.1:${ports}${fullPage.path}`, floorGateway, 20_000);
  await waitUntilOk(`http://127.0.0.1:${ports + 2}${fullPage.path}`, frontOfPages, 20_000);

  const { "redis-server": redisServer, postgres: backends } = await serverGroups(redisUrl, monitor);
  const common: ProcessGroups = { "load generator": () => [process.pid], "redis-server": redisServer, postgres: backends };
  const ofSystem = (system: LaunchedSystem): ProcessGroups => ({ ...common, launcher: () => [system.pids.launcher], front: () => [system.pids.gateway], pages: () => [system.pids.pages] });

  const steps: Step[] = [
    { name: "floor", label: "floor: floor gateway (one ioredis pipeline, fetch) → floor pages app", url: `http://127.0.0.1:${ports}${fullPage.path}`, headers: {}, groups: { ...common, front: () => [floorGateway.process.pid!], pages: () => [floorPages.process.pid!] } },
    { name: "floor-gateway-to-pages", label: "floor gateway → the pages service (principal signed every 20 s)", url: `http://127.0.0.1:${ports + 2}${fullPage.path}`, headers: {}, groups: { ...common, front: () => [frontOfPages.process.pid!], pages: () => [full.pids.pages] } },
    { name: "gateway-in-process-limit", label: "gateway with its in-process limiter (no Redis) → the pages service", url: local.gatewayUrl + localPage.path, headers: localPage.headers, groups: ofSystem(local) },
    { name: "full-path", label: "full path: gateway (key, Redis limit and epoch, principal) → the pages service", url: full.gatewayUrl + fullPage.path, headers: fullPage.headers, groups: ofSystem(full) },
  ];
  for (const step of steps) {
    const response = await fetch(step.url, { headers: step.headers });
    const body = await response.text();
    if (response.status !== 200 || !body.includes("Bench page")) throw new Error(`ladder step ${step.name} answered ${response.status}: ${body}`);
  }

  log("ladder: warming up every step");
  for (const step of steps) await load({ url: step.url, headers: step.headers, connections: CONNECTIONS, duration: 4 });
  const runs = new Map<string, StepRun[]>(steps.map((step) => [step.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Forward, then backward: a steady drift of the shared machine weighs on every step alike.
    for (const step of round % 2 === 0 ? steps : [...steps].reverse()) {
      const before = await cpuSnapshot(step.groups);
      const figures = await load({ url: step.url, headers: step.headers, connections: CONNECTIONS, duration: RUN_SECONDS });
      const after = await cpuSnapshot(step.groups);
      runs.get(step.name)!.push({ rps: figures.rps, p99_ms: figures.p99_ms, non2xx: figures.non2xx + figures.errors, cpu_us_per_request: cpuPerRequest(before, after, figures.requests) });
    }
    log(`ladder round ${round + 1}: ${steps.map((step) => `${step.name} ${runs.get(step.name)!.at(-1)!.rps}`).join(", ")} req/s`);
  }

  const floorRuns = runs.get("floor")!;
  return {
    connections: CONNECTIONS,
    seconds_per_run: RUN_SECONDS,
    rounds: ROUNDS,
    log_level: LOG_LEVEL,
    steps: steps.map((step) => {
      const stepRuns = runs.get(step.name)!;
      const roundRatios = stepRuns.map((run, i) => ratio(run.rps, floorRuns[i]!.rps));
      const cpu = Object.fromEntries(LADDER_ROLES.map((role) => [role, median(stepRuns.map((run) => run.cpu_us_per_request[role] ?? 0))]));
      return {
        name: step.name,
        label: step.label,
        rps: median(stepRuns.map((run) => run.rps)),
        p99_ms: median(stepRuns.map((run) => run.p99_ms)),
        ratio_to_floor: median(roundRatios),
        round_ratios: roundRatios,
        cpu_us_per_request: { ...cpu, total: Object.values(cpu).reduce((sum, value) => sum + value, 0) },
        runs: stepRuns,
      };
    }),
  };
}

function report(r: LadderResults): string {
  const lines = [
    `| Ladder, GET /v1/new-page/{id} (${r.connections} connections, ${r.seconds_per_run} s runs, ${r.rounds} rounds, order reversed every other round; LOG_LEVEL=${r.log_level}) | req/s | p99 ms | / floor (rounds) | ${LADDER_ROLES.join(" | ")} | total CPU µs |`,
    `|---|---:|---:|---|${LADDER_ROLES.map(() => "---:").join("|")}|---:|`,
    ...r.steps.map(
      (step) =>
        `| ${step.label} | ${step.rps} | ${step.p99_ms} | **${step.ratio_to_floor}** (${step.round_ratios.join(", ")}) | ${[...LADDER_ROLES, "total"].map((role) => step.cpu_us_per_request[role] ?? 0).join(" | ")} |`,
    ),
    "",
    "CPU: µs of CPU per request from /proc (every thread's run time), the median over the rounds; front = the floor's gateway or ours. postgres = this benchmark database's backends; redis-server is shared with whatever else runs on the machine. Non-2xx answers: " +
      r.steps.map((step) => `${step.name} ${step.runs.reduce((sum, run) => sum + run.non2xx, 0)}`).join(", ") +
      ".",
  ];
  return lines.join("\n");
}

export const ladderSection: Section<LadderResults> = { name: "ladder", inFullRun: false, run: runLadder, report };

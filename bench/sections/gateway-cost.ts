/**
 * Section 1, "gateway cost": the gateway against a bare Bun reverse proxy, both
 * in front of the same cheap upstream. Part of every full run (first, on the
 * quietest machine) and alone with `npm run bench -- gateway-cost`, which
 * writes bench/results/gateway-cost.json.
 */
import { randomUUID } from "node:crypto";
import { stopChild, waitUntilOk, type Child } from "../../scripts/system/processes";
import { freePortBlock } from "../../tests/harness/ports";
import { load, median, ratio, type LoadFigures } from "../load";
import { cpuSeconds, redisServerPid } from "../machine";
import { gatewayCostReport } from "../report";
import { benchTenant, startBenchProcess, startBenchSystem, startCheapUpstream } from "../system";
import type { Section, SectionContext } from "./index";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const RUN_SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = 3;

export interface GatewayCostResults {
  connections: number;
  seconds_per_run: number;
  floor: RunsSummary;
  gateway: RunsSummary;
  /** The median of the rounds' b/a. */
  ratio: number;
  ratio_of_medians: number;
  round_ratios: number[];
  cpu_us_per_request: { floor: Record<string, number>; gateway: Record<string, number> };
}

interface RunsSummary {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  non2xx: number;
  runs: number[];
}

/** Per process, the median over the rounds, plus the total. */
function medianBreakdown(rounds: Record<string, number>[]): Record<string, number> {
  const names = Object.keys(rounds[0] ?? {});
  const breakdown = Object.fromEntries(names.map((name) => [name, median(rounds.map((round) => round[name]!))]));
  return { ...breakdown, total: Object.values(breakdown).reduce((sum, value) => sum + value, 0) };
}

function summarizeRuns(runs: LoadFigures[]): RunsSummary {
  return {
    rps: median(runs.map((run) => run.rps)),
    p50_ms: median(runs.map((run) => run.p50_ms)),
    p99_ms: median(runs.map((run) => run.p99_ms)),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx + run.errors, 0),
    runs: runs.map((run) => run.rps),
  };
}

export async function gatewayCost({ storage, log }: SectionContext): Promise<GatewayCostResults> {
  const ports = await freePortBlock(6);
  const children: Child[] = [];
  // Stopped when the section ends: what runs after it measures a machine without these.
  let stopSystem = async () => {};
  try {
    const { child: upstream, url: upstreamUrl } = await startCheapUpstream(ports + 4);
    children.push(upstream);
    const floor = startBenchProcess("floor-proxy", "floor-proxy.ts", { PORT: String(ports + 5), UPSTREAM_URL: upstreamUrl });
    children.push(floor);
    const floorUrl = `http://127.0.0.1:${ports + 5}`;
    await waitUntilOk(`${floorUrl}/`, floor, 10_000);
    const system = await startBenchSystem(storage, 1, ports, { PAGES_URL: upstreamUrl });
    stopSystem = () => system.stop();
    const key = await (await benchTenant(system)).key();
    const path = `/v1/new-page/${randomUUID()}`;
    const headers = { authorization: `Bearer ${key}` };
    const check = await fetch(system.gatewayUrls[0] + path, { headers });
    if (check.status !== 200) throw new Error(`gateway to the cheap upstream answered ${check.status}: ${await check.text()}`);
    log("gateway cost: warming up");
    // Long enough for both to be compiled hot and their connection pools full; a short warm-up left the first round an outlier.
    await load({ url: floorUrl + path, headers, connections: CONNECTIONS, duration: 5 });
    await load({ url: system.gatewayUrls[0] + path, headers, connections: CONNECTIONS, duration: 5 });
    const floorRuns: LoadFigures[] = [];
    const gatewayRuns: LoadFigures[] = [];
    // CPU microseconds per request of every process on the path: on two cores they all share the same CPUs.
    const pids: Record<string, number | undefined> = {
      "load generator": process.pid,
      "floor proxy": floor.process.pid,
      gateway: system.children.find((child) => child.name === "gateway")!.process.pid,
      upstream: upstream.process.pid,
      "redis-server": redisServerPid(),
    };
    const cpuPerRequest = { floor: [] as Record<string, number>[], gateway: [] as Record<string, number>[] };
    const measured = async (kind: "floor" | "gateway", url: string) => {
      const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, pid ? cpuSeconds(pid) : 0]));
      const figures = await load({ url, headers, connections: CONNECTIONS, duration: RUN_SECONDS });
      cpuPerRequest[kind].push(
        Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, pid ? Math.round(((cpuSeconds(pid) - before[name]!) * 1e6) / figures.requests) : 0])),
      );
      return figures;
    };
    for (let round = 0; round < ROUNDS; round++) {
      floorRuns.push(await measured("floor", floorUrl + path));
      gatewayRuns.push(await measured("gateway", system.gatewayUrls[0] + path));
      log(`gateway cost round ${round + 1}: floor ${floorRuns.at(-1)!.rps} req/s, gateway ${gatewayRuns.at(-1)!.rps} req/s`);
    }
    const a = summarizeRuns(floorRuns);
    const b = summarizeRuns(gatewayRuns);
    return {
      connections: CONNECTIONS,
      seconds_per_run: RUN_SECONDS,
      floor: a,
      gateway: b,
      // Each round's pair ran back to back, so the median of the rounds' ratios is the least touched by drift.
      ratio: median(gatewayRuns.map((run, i) => ratio(run.rps, floorRuns[i]!.rps))),
      ratio_of_medians: ratio(b.rps, a.rps),
      round_ratios: gatewayRuns.map((run, i) => ratio(run.rps, floorRuns[i]!.rps)),
      cpu_us_per_request: {
        floor: medianBreakdown(cpuPerRequest.floor),
        gateway: medianBreakdown(cpuPerRequest.gateway),
      },
    };
  } finally {
    await stopSystem();
    for (const child of children.reverse()) await stopChild(child);
  }
}

export const gatewayCostSection: Section<GatewayCostResults> = {
  name: "gateway-cost",
  // The full run calls it itself, before everything else, and reports it as section 1 of its own table.
  inFullRun: false,
  run: gatewayCost,
  report: gatewayCostReport,
};

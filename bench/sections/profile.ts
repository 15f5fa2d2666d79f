/**
 * Section "profile" (only when named: profiling slows what it measures):
 * `npm run bench -- profile` runs the full path, the floor and section 1's
 * gateway (in front of the cheap upstream) under load with every Bun process
 * started with `--cpu-prof` (through BUN_OPTIONS, which the launcher passes on
 * to the processes it starts), then summarizes each process's profile.
 * BENCH_PROFILE_RUNTIME=deno profiles the gateway and the services on Deno
 * instead (`deno run --cpu-prof`; the floor is Bun-only and is
 * left out). Raw profiles stay in bench/results/profiles/ (not committed; open
 * them in Chrome DevTools or speedscope).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { randomBytes, randomUUID } from "node:crypto";
import { commandFor, REPO_ROOT, startChild, stopChild, waitUntilOk, type ProcessName } from "../../scripts/system/processes";
import { freePortBlock } from "../../tests/harness/ports";
import { load } from "../load";
import { summarize, summaryTable, type CpuProfile, type ProfileSummary } from "../profile/summarize";
import { benchTenant, startBenchSystem, startCheapUpstream } from "../system";
import type { Section, SectionContext } from "./index";
import { benchPage, startThroughLauncher, type LaunchedSystem } from "./launched-system";

const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DIR = `${REPO_ROOT}bench/results/profiles`;
const TOP = 15;
const RUNTIME = process.env.BENCH_PROFILE_RUNTIME === "deno" ? "deno" : "bun";

/**
 * The system on Deno with `--cpu-prof`: Deno reads no environment variable for
 * its flags, so the processes are started here (as the launcher would) rather
 * than through it.
 */
async function startProfiledOnDeno(context: SectionContext, databaseUrl: string): Promise<LaunchedSystem> {
  const base = await freePortBlock(4);
  const adminToken = randomBytes(24).toString("base64url");
  const signingKey = randomBytes(32).toString("base64url");
  const env = {
    ...(process.env as Record<string, string>),
    DATABASE_URL: databaseUrl,
    INTERNAL_SIGNING_KEY: signingKey,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info",
    DATA_DIR: `${DIR}/data`,
  };
  const command = (name: ProcessName) => {
    const [bin, run, ...rest] = commandFor(name, "deno");
    return [bin!, run!, "--cpu-prof", `--cpu-prof-dir=${DIR}`, ...rest];
  };
  const quiet = () => {};
  const pages = startChild("pages", command("pages"), { ...env, PORT: String(base + 2) }, quiet);
  const calendar = startChild("calendar", command("calendar"), { ...env, PORT: String(base + 3) }, quiet);
  const children = [pages, calendar];
  const stop = async () => {
    for (const child of children.reverse()) await stopChild(child);
  };
  context.defer(stop);
  await waitUntilOk(`http://127.0.0.1:${base + 2}/healthz`, pages, 90_000);
  await waitUntilOk(`http://127.0.0.1:${base + 3}/healthz`, calendar, 90_000);
  const gateway = startChild(
    "gateway",
    command("gateway"),
    {
      ...env,
      PORT: String(base),
      ADMIN_PORT: String(base + 1),
      ADMIN_TOKEN: adminToken,
      PAGES_URL: `http://127.0.0.1:${base + 2}`,
      CALENDAR_URL: `http://127.0.0.1:${base + 3}`,
      RATE_LIMIT_PER_MINUTE: "100000000",
    },
    quiet,
  );
  children.push(gateway);
  await waitUntilOk(`http://127.0.0.1:${base}/healthz`, gateway, 90_000);
  return {
    gatewayUrl: `http://127.0.0.1:${base}`,
    adminUrl: `http://127.0.0.1:${base + 1}`,
    adminToken,
    signingKey,
    pagesUrl: `http://127.0.0.1:${base + 2}`,
    pids: { launcher: -1, gateway: gateway.process.pid!, pages: pages.process.pid!, calendar: calendar.process.pid! },
    tail: () => "",
    stop,
  };
}

export interface ProfileResults {
  runtime: "bun" | "deno";
  seconds: number;
  connections: number;
  rps_while_profiled: { system: number; floor: number; gateway_cost?: number };
  processes: Record<string, ProfileSummary>;
}

async function runProfile(context: SectionContext): Promise<ProfileResults> {
  const { storage, log } = context;
  if (!storage.databaseUrl) throw new Error("the profile section needs DATABASE_URL (real PostgreSQL)");
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const profiled = { BUN_OPTIONS: `--cpu-prof --cpu-prof-dir=${DIR}` };

  const system =
    RUNTIME === "deno"
      ? await startProfiledOnDeno(context, storage.databaseUrl)
      : await startThroughLauncher({
          databaseUrl: storage.databaseUrl,
          redisUrl: process.env.REDIS_URL!,
          env: { ...profiled, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info", RATE_LIMIT_PER_MINUTE: "100000000" },
        });
  context.defer(() => system.stop());
  const { headers, path } = await benchPage(system);

  log(`profile: ${SECONDS} s of load on the full path (${RUNTIME})`);
  const systemRun = await load({ url: system.gatewayUrl + path, headers, connections: CONNECTIONS, duration: SECONDS });
  const names = new Map<number, string>([
    [system.pids.launcher, "launcher (npm start)"],
    [system.pids.gateway, `gateway${RUNTIME === "deno" ? " (deno)" : ""}`],
    [system.pids.pages, `pages${RUNTIME === "deno" ? " (deno)" : ""}`],
    [system.pids.calendar, `calendar${RUNTIME === "deno" ? " (deno)" : ""}`],
  ]);
  await system.stop();
  let floorRun: { rps: number; requests: number } = { rps: 0, requests: 0 };
  let gatewayCostRun: { rps: number; requests: number } = { rps: 0, requests: 0 };
  if (RUNTIME === "bun") {
    floorRun = await profileFloor(context, path, headers, names);
    gatewayCostRun = await profileGatewayCost(context, names);
  }
  // The profiles are written as each process exits.
  const deadline = Date.now() + 15_000;
  const files = () => readdirSync(DIR).filter((file) => file.endsWith(".cpuprofile"));
  while (files().length < names.size - (RUNTIME === "deno" ? 1 : 0) && Date.now() < deadline) await Bun.sleep(200);

  const processes: Record<string, ProfileSummary> = {};
  for (const file of files()) {
    const pid = file.split(".").map(Number).find((part) => names.has(part));
    const name = pid === undefined ? file : names.get(pid)!;
    // Bun samples only while JavaScript runs, so its samples count CPU; Deno samples wall time (idle and descheduled too): shares only.
    const requests =
      RUNTIME === "deno" || name.startsWith("calendar")
        ? undefined
        : name.startsWith("floor")
          ? floorRun.requests
          : name === GATEWAY_COST_NAME
            ? gatewayCostRun.requests
            : systemRun.requests;
    processes[name] = summarize(JSON.parse(readFileSync(`${DIR}/${file}`, "utf8")) as CpuProfile, TOP, requests);
  }
  return {
    runtime: RUNTIME,
    seconds: SECONDS,
    connections: CONNECTIONS,
    rps_while_profiled: { system: systemRun.rps, floor: floorRun.rps, gateway_cost: gatewayCostRun.rps },
    processes,
  };
}

const GATEWAY_COST_NAME = "gateway, section 1";

/**
 * Section 1's gateway (key, limit, principal, in front of the cheap upstream
 * that stands in for a service) under the same load, profiled; adds its name.
 * Only the gateway is profiled: the upstream and the idle services are not its cost.
 */
async function profileGatewayCost(context: SectionContext, names: Map<number, string>) {
  const { storage, log } = context;
  const ports = await freePortBlock(5);
  const upstream = await startCheapUpstream(ports + 4);
  context.defer(() => stopChild(upstream.child));
  const system = await startBenchSystem(storage, 1, ports, { PAGES_URL: upstream.url, BUN_OPTIONS: `--cpu-prof --cpu-prof-dir=${DIR}` });
  context.defer(() => system.stop());
  const headers = { authorization: `Bearer ${await (await benchTenant(system)).key()}` };
  const url = `${system.gatewayUrls[0]}/v1/new-page/${randomUUID()}`;
  log(`profile: ${SECONDS} s of load on section 1's gateway (cheap upstream)`);
  const run = await load({ url, headers, connections: CONNECTIONS, duration: SECONDS });
  names.set(system.children.find((child) => child.name === "gateway")!.process.pid!, GATEWAY_COST_NAME);
  await system.stop();
  await stopChild(upstream.child);
  return run;
}

/** The floor under the same load, each of its Bun processes profiled; adds their names. */
async function profileFloor(context: SectionContext, path: string, headers: Record<string, string>, names: Map<number, string>) {
  const { storage, log } = context;
  const profiled = { BUN_OPTIONS: `--cpu-prof --cpu-prof-dir=${DIR}` };
  const ports = await freePortBlock(2);
  const env = { ...(process.env as Record<string, string>), ...profiled };
  const floorPages = startChild("floor-pages", [`${REPO_ROOT}node_modules/.bin/bun`, `${REPO_ROOT}bench/floor/pages.ts`], { ...env, PORT: String(ports + 1), DATABASE_URL: storage.databaseUrl! }, (who, line) => console.log(`[${who}] ${line}`));
  context.defer(() => stopChild(floorPages));
  const floorGateway = startChild(
    "floor-gateway",
    [`${REPO_ROOT}node_modules/.bin/bun`, `${REPO_ROOT}bench/floor/gateway.ts`],
    { ...env, PORT: String(ports), REDIS_URL: process.env.REDIS_URL!, PAGES_URL: `http://127.0.0.1:${ports + 1}` },
    (who, line) => console.log(`[${who}] ${line}`),
  );
  context.defer(() => stopChild(floorGateway));
  await waitUntilOk(`http://127.0.0.1:${ports}${path}`, floorGateway, 20_000);
  log(`profile: ${SECONDS} s of load on the floor`);
  const floorRun = await load({ url: `http://127.0.0.1:${ports}${path}`, headers, connections: CONNECTIONS, duration: SECONDS });
  names.set(floorGateway.process.pid!, "floor gateway");
  names.set(floorPages.process.pid!, "floor pages");
  await stopChild(floorGateway);
  await stopChild(floorPages);
  return floorRun;
}

function report(r: ProfileResults): string {
  const order = ["gateway", "gateway (deno)", GATEWAY_COST_NAME, "pages", "pages (deno)", "launcher (npm start)", "floor gateway", "floor pages", "calendar", "calendar (deno)"];
  const names = Object.keys(r.processes).sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  return [
    `Profiles (${r.seconds} s at ${r.connections} connections each, ${r.runtime} --cpu-prof; ${r.rps_while_profiled.system} req/s full path${r.rps_while_profiled.floor ? `, ${r.rps_while_profiled.floor} req/s floor` : ""}${r.rps_while_profiled.gateway_cost ? `, ${r.rps_while_profiled.gateway_cost} req/s section 1's gateway` : ""} while profiled)`,
    "",
    ...names.map((name) => summaryTable(name, r.processes[name]!) + "\n"),
  ].join("\n");
}

export const profileSection: Section<ProfileResults> = {
  name: "profile",
  inFullRun: false,
  run: runProfile,
  report,
  fileName: (result) => (result.runtime === "deno" ? "profile-deno.json" : "profile.json"),
};

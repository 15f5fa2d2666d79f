/**
 * Section "profile" (only when named: profiling slows what it measures):
 * `npm run bench -- profile` runs the full path and the floor under load with
 * every Bun process started with `--cpu-prof` (through BUN_OPTIONS, which the
 * launcher passes on to the processes it starts), then summarizes each
 * process's profile. Raw profiles stay in bench/results/profiles/ (not committed;
 * open them in Chrome DevTools or speedscope).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { REPO_ROOT, startChild, stopChild, waitUntilOk } from "../../scripts/system/processes";
import { freePortBlock } from "../../tests/harness/ports";
import { seedTenant } from "../../tests/harness/tenant";
import { load } from "../load";
import { summarize, summaryTable, type CpuProfile, type ProfileSummary } from "../profile/summarize";
import type { Section, SectionContext } from "./index";
import { startThroughLauncher } from "./launched-system";

const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DIR = `${REPO_ROOT}bench/results/profiles`;
const TOP = 15;

export interface ProfileResults {
  seconds: number;
  connections: number;
  rps_while_profiled: { system: number; floor: number };
  processes: Record<string, ProfileSummary>;
}

async function runProfile(context: SectionContext): Promise<ProfileResults> {
  const { storage, log } = context;
  if (!storage.databaseUrl) throw new Error("the profile section needs DATABASE_URL (real PostgreSQL)");
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const profiled = { BUN_OPTIONS: `--cpu-prof --cpu-prof-dir=${DIR}` };

  const system = await startThroughLauncher({
    databaseUrl: storage.databaseUrl,
    redisUrl: process.env.REDIS_URL!,
    env: { ...profiled, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info", RATE_LIMIT_PER_MINUTE: "100000000" },
  });
  context.defer(() => system.stop());
  const tenant = await seedTenant({ adminUrl: system.adminUrl, adminToken: system.adminToken });
  const headers = { authorization: `Bearer ${await tenant.key()}` };
  const created = await fetch(`${system.gatewayUrl}/v1/new-page`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ title: "Bench page", content: "A page read over and over by the benchmark." }),
  });
  const path = `/v1/new-page/${((await created.json()) as { id: string }).id}`;

  const ports = await freePortBlock(2);
  const env = { ...(process.env as Record<string, string>), ...profiled };
  const floorPages = startChild("floor-pages", [`${REPO_ROOT}node_modules/.bin/bun`, `${REPO_ROOT}bench/floor/pages.ts`], { ...env, PORT: String(ports + 1), DATABASE_URL: storage.databaseUrl }, (who, line) => console.log(`[${who}] ${line}`));
  context.defer(() => stopChild(floorPages));
  const floorGateway = startChild(
    "floor-gateway",
    [`${REPO_ROOT}node_modules/.bin/bun`, `${REPO_ROOT}bench/floor/gateway.ts`],
    { ...env, PORT: String(ports), REDIS_URL: process.env.REDIS_URL!, PAGES_URL: `http://127.0.0.1:${ports + 1}` },
    (who, line) => console.log(`[${who}] ${line}`),
  );
  context.defer(() => stopChild(floorGateway));
  await waitUntilOk(`http://127.0.0.1:${ports}${path}`, floorGateway, 20_000);

  log(`profile: ${SECONDS} s of load on the full path, then on the floor`);
  const systemRun = await load({ url: system.gatewayUrl + path, headers, connections: CONNECTIONS, duration: SECONDS });
  const floorRun = await load({ url: `http://127.0.0.1:${ports}${path}`, headers, connections: CONNECTIONS, duration: SECONDS });

  const names = new Map<number, string>([
    [system.pids.launcher, "launcher (npm start)"],
    [system.pids.gateway, "gateway"],
    [system.pids.pages, "pages"],
    [system.pids.calendar, "calendar"],
    [floorGateway.process.pid!, "floor gateway"],
    [floorPages.process.pid!, "floor pages"],
  ]);
  // The profiles are written as each process exits.
  await system.stop();
  await stopChild(floorGateway);
  await stopChild(floorPages);
  const deadline = Date.now() + 15_000;
  const files = () => readdirSync(DIR).filter((file) => file.endsWith(".cpuprofile"));
  while (files().length < names.size && Date.now() < deadline) await Bun.sleep(200);

  const processes: Record<string, ProfileSummary> = {};
  for (const file of files()) {
    const pid = file.split(".").map(Number).find((part) => names.has(part));
    const name = pid === undefined ? file : names.get(pid)!;
    const requests = name === "calendar" ? undefined : name.startsWith("floor") ? floorRun.requests : systemRun.requests;
    processes[name] = summarize(JSON.parse(readFileSync(`${DIR}/${file}`, "utf8")) as CpuProfile, TOP, requests);
  }
  if (!existsSync(`${DIR}/.gitignore`)) await Bun.write(`${DIR}/.gitignore`, "*\n");
  return { seconds: SECONDS, connections: CONNECTIONS, rps_while_profiled: { system: systemRun.rps, floor: floorRun.rps }, processes };
}

function report(r: ProfileResults): string {
  const order = ["gateway", "pages", "launcher (npm start)", "floor gateway", "floor pages", "calendar"];
  const names = Object.keys(r.processes).sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  return [
    `Profiles (${r.seconds} s at ${r.connections} connections each, bun --cpu-prof; ${r.rps_while_profiled.system} req/s full path, ${r.rps_while_profiled.floor} req/s floor while profiled)`,
    "",
    ...names.map((name) => summaryTable(name, r.processes[name]!) + "\n"),
  ].join("\n");
}

export const profileSection: Section<ProfileResults> = { name: "profile", inFullRun: false, run: runProfile, report };

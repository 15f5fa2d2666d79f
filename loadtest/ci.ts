/**
 * The k6 stage of CI, also runnable by hand: `bun loadtest/ci.ts`.
 *
 * Starts the system (three gateway replicas on DATABASE_URL and REDIS_URL, on
 * free ports and a database of its own), runs every k6 script against it,
 * shortened, and stops everything. Each script run is one entry: k6's exit
 * code decides. Without k6 the stage says so and is skipped. The last line is
 * "k6 scripts: N passed, N failed" (or "k6 scripts: skipped"). ONLY_RUN=<name>
 * runs one entry of the plan alone (ci/plan.ts).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO_ROOT } from "../scripts/system/processes";
import { findK6 } from "./ci/find-k6";
import { CI_RUNS, runEnv } from "./ci/plan";
import { describeExit, runK6, stopCurrentK6 } from "./ci/run-k6";
import { startSystemUnderLoad, type SystemUnderLoad } from "./ci/system-under-load";

const REPLICAS = 3;
/** Time a run may take beyond its scenario: k6's start, setup(), teardown(), a slow machine. */
const RUN_MARGIN_MS = 90_000;

const stageStarted = Date.now();
const elapsed = () => ((Date.now() - stageStarted) / 1000).toFixed(0) + " s";

const k6 = findK6(process.env, REPO_ROOT);
if (!k6.found) {
  console.log(`${k6.reason}; the k6 stage is skipped. Install k6 (v0.48 or later) or set K6 to its path to run it.`);
  console.log("k6 scripts: skipped");
  process.exit(0);
}
const version = spawnSync(k6.path, ["version"], { encoding: "utf8" });
if (version.status !== 0) {
  console.log(`${k6.path} (from ${k6.from}) does not run: ${(version.stderr || version.error?.message || "").trim()}`);
  console.log("k6 scripts: 0 passed, 1 failed");
  process.exit(1);
}
console.log(`${version.stdout.trim()} (from ${k6.from}: ${k6.path})`);

const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const replicas = shared ? REPLICAS : 1;
if (!shared) console.log("DATABASE_URL or REDIS_URL unset: one gateway on embedded storage, and the runs that need several replicas are skipped.");

// A signal stops the k6 run in progress; the loop below then stops the system
// and counts the interrupted run as failed.
let interrupted: string | undefined;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = signal;
    console.log(`\n${signal}: stopping k6 and the system`);
    stopCurrentK6();
  });
}

let system: SystemUnderLoad;
try {
  system = await startSystemUnderLoad(replicas);
} catch (error) {
  console.log(`the system did not start: ${error instanceof Error ? error.message : String(error)}`);
  console.log("k6 scripts: 0 passed, 1 failed");
  process.exit(1);
}
console.log(`system up in ${elapsed()}: ${replicas} gateway${replicas > 1 ? "s" : ""} (${system.gatewayUrls.join(", ")}) on ${system.storage}`);

const reportsDir = join(REPO_ROOT, "loadtest", "reports");
mkdirSync(reportsDir, { recursive: true });
const stamp = new Date().toISOString().replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "");

const recap: string[] = [];
let passed = 0;
let failed = 0;
for (const run of CI_RUNS.filter((r) => !process.env.ONLY_RUN || r.name === process.env.ONLY_RUN)) {
  if (interrupted) break;
  if (run.replicas > replicas) {
    recap.push(`  - ${run.name}: skipped (needs ${run.replicas} replicas, so DATABASE_URL and REDIS_URL)`);
    continue;
  }
  const report = join(reportsDir, `ci-${run.name}-${stamp}.json`);
  const env = runEnv(run, system, report);
  const shown = Object.entries(run.settings).map(([k, v]) => `${k}=${v}`).join(" ");
  console.log(`\n--- k6 run loadtest/${run.script} (${run.name}: ${shown}) at ${elapsed()}`);
  const result = await runK6(k6.path, join(REPO_ROOT, "loadtest", run.script), env, run.scenarioSeconds * 1000 + RUN_MARGIN_MS);
  const ok = result.code === 0 && !interrupted;
  if (ok) passed += 1;
  else failed += 1;
  const how = interrupted ? `interrupted by ${interrupted}` : describeExit(result.code, result.timedOut);
  recap.push(`  ${ok ? "✓" : "✗"} ${run.name}: ${how}, ${result.seconds.toFixed(0)} s, report ${relative(REPO_ROOT, report)}`);
  if (!ok && !interrupted) {
    console.log(`--- the system's last log lines:`);
    for (const line of system.logTail().slice(-40)) console.log(line);
  }
}

await system.stop();
console.log(`\nk6 stage: ${elapsed()} in all (${version.stdout.trim().split(" ").slice(0, 2).join(" ")}, ${replicas} gateway${replicas > 1 ? "s" : ""} on ${system.storage})`);
for (const line of recap) console.log(line);
if (interrupted) console.log(`interrupted by ${interrupted}: the runs after it did not run`);
console.log(`k6 scripts: ${passed} passed, ${failed} failed`);
process.exit(interrupted ? 130 : failed === 0 ? 0 : 1);

/**
 * Third-party contract testing against the live system: starts the gateway and
 * both services (real PostgreSQL and Redis when DATABASE_URL and REDIS_URL are
 * set, each run on a database of its own and on free ports), provisions an API
 * key through the management API, has Portman generate a contract and
 * variation suite from the served /openapi.json, and runs it with Newman.
 * Prints the counts; exits non-zero on any failed assertion or request.
 *
 *   bun tests/contract/run-portman.ts [--keep] [--verbose]
 *   (--keep leaves the generated document, configuration and collection; --verbose prints Newman's report)
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSystem } from "../harness/system";
import { seedTenant } from "../harness/tenant";
import { portmanConfig } from "./portman-config";

const ROOT = join(import.meta.dir, "../..");
const keep = process.argv.includes("--keep");

/** Runs in `cwd`: Portman keeps its working copies under ./tmp there. */
async function run(command: string[], label: string, cwd: string): Promise<{ code: number; output: string }> {
  const child = Bun.spawn(command, {
    cwd,
    stdout: "pipe",
    stderr: "pipe",
    // Portman and Newman need nothing from the network: no update checks, no telemetry.
    env: { ...process.env, NO_UPDATE_NOTIFIER: "1", DO_NOT_TRACK: "1" },
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) console.error(`${label} exited with ${code}\n${stderr}`);
  return { code, output: stdout + stderr };
}

const started = performance.now();
const system = await startSystem();
const workDir = await mkdtemp(join(tmpdir(), "portman-"));
let failed = true;
try {
  const tenant = await seedTenant(system);
  const apiKey = await tenant.key();
  const served = await fetch(`${system.baseUrl}/openapi.json`);
  if (!served.ok) throw new Error(`/openapi.json answered ${served.status}`);
  const document = (await served.json()) as Record<string, unknown>;
  const files = {
    document: join(workDir, "openapi.json"),
    config: join(workDir, "portman-config.json"),
    collection: join(workDir, "collection.json"),
  };
  await writeFile(files.document, JSON.stringify(document, null, 2));
  await writeFile(files.config, JSON.stringify(portmanConfig(document, apiKey), null, 2));

  const portman = await run(
    ["node", join(ROOT, "node_modules/.bin/portman"), "--local", files.document, "--portmanConfigFile", files.config, "--baseUrl", system.baseUrl, "--output", files.collection, "--includeTests", "true"],
    "portman",
    workDir,
  );
  if (portman.code !== 0) throw new Error(portman.output);

  const newman = await run(["node", join(import.meta.dir, "run-newman.cjs"), files.collection], "newman", ROOT);
  const resultLine = newman.output.split("\n").find((line) => line.startsWith("NEWMAN-RESULT "));
  const report = newman.output.split("\n").filter((line) => !line.startsWith("NEWMAN-RESULT ")).join("\n");
  if (!resultLine) throw new Error(`newman printed no result:\n${report}`);
  const result = JSON.parse(resultLine.slice("NEWMAN-RESULT ".length)) as {
    requests: { total: number; failed: number };
    assertions: { total: number; failed: number };
    failures: { at?: string; request?: string; message?: string }[];
  };
  const { requests, assertions } = result;
  // Newman's own report is long: shown in full only when something failed (or with --verbose).
  if (result.failures.length > 0 || process.argv.includes("--verbose")) console.log(report);
  for (const failure of result.failures) console.log(`FAILED ${failure.at ?? "?"} (${failure.request ?? "?"}): ${failure.message}`);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`Portman + Newman: ${requests.total} requests, ${assertions.total} assertions, ${assertions.failed} failed assertions, ${requests.failed} failed requests (${seconds} s)`);
  failed = newman.code !== 0 || assertions.failed > 0 || requests.failed > 0 || assertions.total === 0;
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
} finally {
  await system.stop();
  if (keep) console.log(`generated files kept in ${workDir}`);
  else await rm(workDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

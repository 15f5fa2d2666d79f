import { expect } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateKey } from "../../../gateway/src/keys/key-format";
import { parsePrometheusText, sampleValue } from "../operations/prometheus-format";
import { hasRedisServer, throwawayRedis } from "../ratelimit/helpers";
import { commandFor, runtimeEnv, startChild, type ProcessName } from "../../../scripts/system/processes";
import { startSystem, TEST_RUNTIME, type StartOptions, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";

/**
 * Failed authentications are counted per client address, and every test system
 * on one Redis shares 127.0.0.1's counter: a test of those limits gets a
 * redis-server of its own when the run has Redis, and the in-process limiter
 * when it runs on embedded defaults.
 */
export async function ownRedis(): Promise<{ options: Pick<StartOptions, "env" | "withoutRedis">; dispose(): Promise<void> }> {
  if (!process.env.REDIS_URL) return { options: { withoutRedis: true }, dispose: async () => {} };
  if (!hasRedisServer) throw new Error("REDIS_URL is set but redis-server is not installed: a failure-limit test needs a Redis of its own");
  const redis = await throwawayRedis();
  await redis.start();
  return { options: { env: { REDIS_URL: redis.url } }, dispose: () => redis.dispose() };
}

/**
 * A system of its own for a test of the failed-authentication limits (on a
 * Redis of its own, see ownRedis), with these gateway settings, and a tenant:
 * two replicas when the datastores allow it, so that a key read by one is new
 * to the other.
 */
export async function ownLimitsSystem(gatewayEnv: Record<string, string>): Promise<{ system: TestSystem; tenant: Tenant; stop(): Promise<void> }> {
  const redis = await ownRedis();
  const replicas = process.env.DATABASE_URL && !redis.options.withoutRedis ? 2 : 1;
  const system = await startSystem({ ...redis.options, replicas, gatewayEnv });
  return {
    system,
    tenant: await seedTenant(system),
    async stop() {
      await system.stop();
      await redis.dispose();
    },
  };
}

/** Presented keys the system's replicas looked up in the database, in all. */
export async function keyLookups(system: Pick<TestSystem, "adminUrls">): Promise<number> {
  return (await Promise.all(system.adminUrls.map((url) => metric(url, "auth_key_lookups_total")))).reduce((a, b) => a + b, 0);
}

/** A key with our prefix and a valid checksum that was never issued: it passes the format check and needs a look-up. */
export function unissuedKey(): string {
  return generateKey("wsk").key;
}

/** One sample of the gateway's /metrics on its internal port; a series never observed reads 0. */
export async function metric(adminUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const response = await fetch(`${adminUrl}/metrics`);
  expect(response.status).toBe(200);
  return sampleValue(parsePrometheusText(await response.text()), name, labels) ?? 0;
}

let clients = 0;

/** A documentation-range address (RFC 5737), a new one each call, to stand for one client behind a proxy. */
export function newClientAddress(): string {
  clients += 1;
  return `198.51.100.${clients % 250}`;
}

/**
 * Starts one process with this environment and returns how it exited, for
 * settings that must stop it at start. It gets embedded storage in a folder of
 * its own, never the run's shared database, in case it does start.
 */
export async function exitOf(process: ProcessName, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), "wsapi-exit-"));
  const inherited = Object.fromEntries(Object.entries(globalThis.process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  delete inherited.DATABASE_URL;
  delete inherited.REDIS_URL;
  const lines: string[] = [];
  const child = startChild(process, commandFor(process, TEST_RUNTIME), { ...inherited, ...runtimeEnv(process, TEST_RUNTIME), DATA_DIR: dataDir, PORT: "0", ADMIN_PORT: "0", ...env }, (_, line) => lines.push(line));
  // A process that starts after all is stopped: the caller's expectation on the exit code then fails.
  const timer = setTimeout(() => child.process.kill("SIGTERM"), 20_000);
  const code = await child.exited;
  clearTimeout(timer);
  await rm(dataDir, { recursive: true, force: true });
  return { code, output: lines.join("\n") };
}

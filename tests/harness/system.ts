import { freePortBlock, launchSystem, throwawayStorage, type RunningSystem, type RuntimeName } from "../../scripts/system";

export interface TestSystem {
  baseUrl: string;
  baseUrls: string[];
  adminUrl: string;
  adminUrls: string[];
  adminToken: string;
  signingKey: string;
  pagesUrl: string;
  calendarUrl: string;
  databaseUrl?: string;
  running: RunningSystem;
  stop(): Promise<void>;
}

export interface StartOptions {
  replicas?: number;
  /** Environment for every process. */
  env?: Record<string, string | undefined>;
  /** Environment for the gateways only. */
  gatewayEnv?: Record<string, string | undefined>;
  /** Without Redis even when REDIS_URL is set (the embedded in-process limiter). */
  withoutRedis?: boolean;
  /** Print the processes' log lines (for debugging a test). */
  verbose?: boolean;
  /** The PostgreSQL server to make the system's database on (default DATABASE_URL; a fault test's own server). */
  databaseServerUrl?: string;
  /** Receives every log line of every process. */
  output?: (process: string, line: string) => void;
}

/** The runtime the processes run on: TEST_RUNTIME=deno runs the same suite against Deno. */
export const TEST_RUNTIME = (process.env.TEST_RUNTIME ?? "bun") as RuntimeName;

/** Starts the real gateway and services as processes on free ports, with their own storage. */
export async function startSystem(options: StartOptions = {}): Promise<TestSystem> {
  const replicas = options.replicas ?? 1;
  const storage = await throwawayStorage(options.databaseServerUrl);
  const base = await freePortBlock(2 * replicas + 2);
  const redisUrl = options.withoutRedis ? undefined : process.env.REDIS_URL;
  const running = await launchSystem({
    runtime: TEST_RUNTIME,
    replicas,
    port: base,
    adminPort: base + replicas,
    pagesPort: base + 2 * replicas,
    calendarPort: base + 2 * replicas + 1,
    // HOST and ADMIN_HOST from the shell would move the listeners away from where the tests connect.
    // Test systems stop at once: their services do not wait out the gateway's idle connections (a test of the drain sets its own).
    env: { LOG_LEVEL: "warn", ...storage.env, REDIS_URL: redisUrl, ADMIN_TOKEN: undefined, HOST: undefined, ADMIN_HOST: undefined, DRAIN_CONNECTIONS_MS: "0", ...options.env },
    // Every test system on one Redis shares the 127.0.0.1 failure counter: only the test of that limit sets it low.
    gatewayEnv: { AUTH_FAILURE_LIMIT_PER_MINUTE: "1000000", ...options.gatewayEnv },
    output: options.output ?? (options.verbose ? (name, line) => console.log(`[${name}] ${line}`) : undefined),
    readyTimeoutMs: 90_000,
  }).catch(async (error) => {
    await storage.dispose();
    throw error;
  });
  return {
    baseUrl: running.gatewayUrls[0]!,
    baseUrls: running.gatewayUrls,
    adminUrl: running.adminUrls[0]!,
    adminUrls: running.adminUrls,
    adminToken: running.adminToken,
    signingKey: running.signingKey,
    pagesUrl: running.pagesUrl,
    calendarUrl: running.calendarUrl,
    databaseUrl: storage.databaseUrl,
    running,
    async stop() {
      await running.stop();
      await storage.dispose();
    },
  };
}

let shared: Promise<TestSystem> | undefined;

/**
 * One default system shared by every test file of a run (stopped by the preload
 * when the run ends). Tests isolate themselves by seeding their own workspace.
 */
export function sharedSystem(): Promise<TestSystem> {
  shared ??= startSystem();
  return shared;
}

export async function stopSharedSystem(): Promise<void> {
  if (shared) await (await shared).stop();
  shared = undefined;
}

import { launchSystem, type RunningSystem } from "../../scripts/system/launch-system";
import { testStorage } from "../../tests/harness/database";
import { freePortBlock } from "../../tests/harness/ports";

export interface SystemUnderLoad {
  gatewayUrls: string[];
  adminUrl: string;
  adminToken: string;
  /** Where it stores its data, for the log ("PostgreSQL and Redis", …). */
  storage: string;
  /** The processes' last log lines, to print when a run fails. */
  logTail(): string[];
  stop(): Promise<void>;
}

const TAIL_LINES = 200;

/**
 * The gateway replicas and both services as real processes on free ports, on a
 * database of their own (created on DATABASE_URL's server and dropped at
 * stop, so load runs never leave rows behind) and on REDIS_URL when set.
 */
export async function startSystemUnderLoad(replicas: number): Promise<SystemUnderLoad> {
  const storage = await testStorage();
  const tail: string[] = [];
  let running: RunningSystem;
  try {
    const base = await freePortBlock(2 * replicas + 2);
    running = await launchSystem({
      replicas,
      port: base,
      adminPort: base + replicas,
      pagesPort: base + 2 * replicas,
      calendarPort: base + 2 * replicas + 1,
      // A token of this run only: the scripts provision their workspaces and keys with it.
      env: { LOG_LEVEL: "warn", ...storage.env, REDIS_URL: process.env.REDIS_URL, ADMIN_TOKEN: undefined },
      // Every system on one Redis shares the failed-authentication count of 127.0.0.1, where k6 and every
      // test send from: other suites' deliberate failures must not lock this run's valid keys out.
      gatewayEnv: { AUTH_FAILURE_LIMIT_PER_MINUTE: "1000000" },
      output: (name, line) => {
        tail.push(`[${name}] ${line}`);
        if (tail.length > TAIL_LINES) tail.shift();
      },
      readyTimeoutMs: 90_000,
    });
  } catch (error) {
    await storage.dispose();
    throw error;
  }
  return {
    gatewayUrls: running.gatewayUrls,
    adminUrl: running.adminUrls[0]!,
    adminToken: running.adminToken,
    storage: `${storage.databaseUrl ? "PostgreSQL" : "embedded PGlite"}, ${process.env.REDIS_URL ? "Redis" : "in-process"} rate limits`,
    logTail: () => tail.slice(),
    async stop() {
      await running.stop();
      await storage.dispose();
    },
  };
}

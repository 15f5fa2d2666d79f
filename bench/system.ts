/** The real system as the bench starts it: real PostgreSQL and Redis, request logs at `warn`, a rate limit that never triggers. */
import { adminClient } from "../gateway/src/definition";
import { launchSystem, REPO_ROOT, seedWorkspace, startChild, stopChild, waitUntilOk, type Child, type RunningSystem, type SeededWorkspace, type ThrowawayStorage } from "../scripts/system";

/** A script of bench/ in a Bun process of its own (`upstream.ts`, `floor-proxy.ts`), its lines printed; the caller stops it. */
export function startBenchProcess(name: string, script: string, env: Record<string, string>): Child {
  return startChild(name, [`${REPO_ROOT}node_modules/.bin/bun`, `${REPO_ROOT}bench/${script}`], { ...(process.env as Record<string, string>), ...env }, (who, line) => console.log(`[${who}] ${line}`));
}

/** The cheap upstream that stands in for a service in section 1, once it answers; the caller stops it. */
export async function startCheapUpstream(port: number): Promise<{ child: Child; url: string }> {
  const child = startBenchProcess("upstream", "upstream.ts", { PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilOk(`${url}/`, child, 10_000);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { child, url };
}

/** `replicas` gateways on ports from `ports` (admin ports after them, then pages and calendar); the caller stops it. */
export function startBenchSystem(storage: ThrowawayStorage, replicas: number, ports: number, gatewayEnv: Record<string, string> = {}): Promise<RunningSystem> {
  return launchSystem({
    replicas,
    port: ports,
    adminPort: ports + replicas,
    pagesPort: ports + 2 * replicas,
    calendarPort: ports + 2 * replicas + 1,
    env: { ...storage.env, LOG_LEVEL: "warn", REDIS_URL: process.env.REDIS_URL, ADMIN_TOKEN: undefined },
    // High enough never to trigger: the bench measures the limiter's cost, not its refusals.
    gatewayEnv: { RATE_LIMIT_PER_MINUTE: "100000000", ...gatewayEnv },
    output: (name, line) => {
      if (/error|fatal/i.test(line)) console.log(`[${name}] ${line}`);
    },
    readyTimeoutMs: 90_000,
  });
}

/** A workspace and its owner, whose keys get every permission unless told otherwise. */
export function benchTenant(system: RunningSystem): Promise<SeededWorkspace> {
  const unique = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  return seedWorkspace(adminClient(system.adminUrls[0]!, system.adminToken), { name: `Bench workspace ${unique}`, ownerEmail: `bench-${unique}@example.com` });
}

/** The real system as the bench starts it: real PostgreSQL and Redis, request logs at `warn`, a rate limit that never triggers. */
import { adminClient } from "../gateway/src/definition";
import { launchSystem, seedWorkspace, type RunningSystem, type SeededWorkspace, type ThrowawayStorage } from "../scripts/system";

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

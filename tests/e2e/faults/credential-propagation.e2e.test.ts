import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { redisKeys } from "../../../gateway/src/ratelimit/redis-keys";
import { apiClient, readResponse } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";
import { canRunThrowawayPostgres, throwawayPostgres, type ThrowawayPostgres } from "../../harness/throwaway-postgres";
import { hasRedisServer, throwawayRedis } from "../ratelimit/helpers";
import { sleep } from "./helpers";

/**
 * A revocation reaches every replica through the workspace's credential epoch
 * in Redis. When Redis does not take the epoch at once, the management API
 * keeps trying: it answers once the epoch landed, or 503 saying the change is
 * committed but not yet propagated, and lands it later by itself.
 */
type ThrowawayRedis = Awaited<ReturnType<typeof throwawayRedis>>;
let redis: ThrowawayRedis | undefined;
let database: ThrowawayPostgres | undefined;
let system: TestSystem | undefined;

async function storedEpoch(workspaceId: string): Promise<string> {
  const sql = postgres(system!.databaseUrl!, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ auth_epoch: string }[]>`select auth_epoch::text from workspaces where id = ${workspaceId}`;
    return row!.auth_epoch;
  } finally {
    await sql.end();
  }
}

function revoke(tenant: Tenant, keyId: string) {
  return fetch(`${system!.adminUrl}/admin/v1/workspaces/${tenant.workspaceId}/api-keys/${keyId}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${system!.adminToken}` },
  }).then(readResponse);
}

/** A key that every replica has read and cached. */
async function keyCachedEverywhere(tenant: Tenant) {
  const { id, key } = await tenant.keyWithId();
  for (const url of system!.baseUrls) for (let i = 0; i < 3; i++) expect((await apiClient(url, key)("GET", "/v1/new-page")).status).toBe(200);
  return { id, key };
}

describe.skipIf(!canRunThrowawayPostgres || !hasRedisServer)("credential changes while Redis is unreachable, two replicas", () => {
  beforeAll(async () => {
    redis = await throwawayRedis();
    await redis.start();
    await redis.client.connect();
    database = await throwawayPostgres();
    system = await startSystem({ replicas: 2, databaseServerUrl: database.url, env: { REDIS_URL: redis.url } });
  });
  afterAll(async () => {
    await system?.stop();
    await redis?.dispose();
    await database?.dispose();
  });

  test("when Redis is back within the wait, then a revocation answers 204 only once its epoch is in Redis, and the key is refused on every replica", async () => {
    const tenant = await seedTenant(system!);
    const { id, key } = await keyCachedEverywhere(tenant);
    await redis!.stop();
    const answer = revoke(tenant, id);
    await sleep(500);
    await redis!.start();
    const response = await answer;
    const published = await redis!.client.get(redisKeys.authEpoch(tenant.workspaceId));

    expect(response.status).toBe(204);
    expect(published).toBe(await storedEpoch(tenant.workspaceId));
    for (const url of system!.baseUrls) expect((await apiClient(url, key)("GET", "/v1/new-page")).status).toBe(401);
  });

  test("when Redis stays down, then the revocation answers 503 saying it is committed but not propagated, and its epoch lands by itself once Redis is back", async () => {
    const tenant = await seedTenant(system!);
    const { id, key } = await keyCachedEverywhere(tenant);
    await redis!.stop();
    const started = performance.now();
    const response = await revoke(tenant, id);
    const waitedMs = performance.now() - started;
    console.log(`credential propagation: revocation answered ${response.status} after ${Math.round(waitedMs)} ms with Redis down`);

    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe("service_unavailable");
    expect(response.body.error.details).toMatchObject({ committed: true, propagated: false });
    expect(response.headers.get("retry-after")).toBeNull();

    await redis!.start();
    const expected = await storedEpoch(tenant.workspaceId);
    const deadline = Date.now() + 10_000;
    let published: string | null = null;
    // No API request in between: the gateway lands the epoch on its own.
    while (Date.now() < deadline && published !== expected) {
      await sleep(200);
      published = await redis!.client.get(redisKeys.authEpoch(tenant.workspaceId)).catch(() => null);
    }
    expect(published).toBe(expected);
    for (const url of system!.baseUrls) expect((await apiClient(url, key)("GET", "/v1/new-page")).status).toBe(401);
  });
});

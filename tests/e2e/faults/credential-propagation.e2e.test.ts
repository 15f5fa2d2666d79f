import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
/** How long a replica uses a cached key before reading it again, whatever Redis says (short here, to see it happen). */
const KEY_CACHE_MAX_AGE_MS = 4_000;
/** Where the throwaway Redis writes a snapshot when told to SAVE, and reads it back when it starts. */
const snapshots = mkdtempSync(join(tmpdir(), "credential-propagation-"));

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
    redis = await throwawayRedis(["--dir", snapshots]);
    await redis.start();
    await redis.client.connect();
    database = await throwawayPostgres();
    system = await startSystem({ replicas: 2, databaseServerUrl: database.url, env: { REDIS_URL: redis.url }, gatewayEnv: { KEY_CACHE_MAX_AGE_MS: String(KEY_CACHE_MAX_AGE_MS) } });
  });
  afterAll(async () => {
    await system?.stop();
    await redis?.dispose();
    await database?.dispose();
    rmSync(snapshots, { recursive: true, force: true });
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
  /** Once every replica has connected again to the Redis just started (two connections each, besides the test's own). */
  async function replicasReconnected(): Promise<void> {
    const deadline = Date.now() + 10_000;
    const connections = async () => String(await redis!.client.client("LIST")).trim().split("\n").length;
    while ((await connections()) < 1 + 2 * system!.baseUrls.length) {
      if (Date.now() > deadline) throw new Error("the gateways did not connect to Redis again");
      await sleep(50);
    }
  }

  /** Requests to every replica for `ms`: the statuses of each. */
  async function statusesFor(key: string, ms: number): Promise<number[][]> {
    const until = performance.now() + ms;
    const statuses: number[][] = system!.baseUrls.map(() => []);
    while (performance.now() < until) {
      await Promise.all(system!.baseUrls.map(async (url, replica) => statuses[replica]!.push((await apiClient(url, key)("GET", "/v1/new-page")).status)));
      await sleep(50);
    }
    return statuses;
  }

  test("when Redis loses every epoch after a revocation was answered (flushed, or restarted empty), then the key is still refused on every replica", async () => {
    for (const loss of ["flushed", "restarted empty"] as const) {
      const tenant = await seedTenant(system!);
      const { id, key } = await keyCachedEverywhere(tenant);
      expect((await revoke(tenant, id)).status).toBe(204);
      if (loss === "flushed") await redis!.client.flushall();
      else {
        rmSync(join(snapshots, "dump.rdb"), { force: true });
        await redis!.stop();
        await redis!.start();
        await replicasReconnected();
      }
      expect(await redis!.client.get(redisKeys.authEpoch(tenant.workspaceId))).toBeNull();
      const statuses = await statusesFor(key, 1_500);
      for (const replica of statuses) expect(replica.filter((status) => status < 300)).toEqual([]);
    }
  });

  test("when Redis restarts from a snapshot taken before a change was answered, then the change still holds on every replica", async () => {
    const tenant = await seedTenant(system!);
    // A team makes the workspace's epoch one that Redis holds, as in any workspace that has changed since its start.
    await tenant.team();
    const { id, key } = await keyCachedEverywhere(tenant);
    const before = await redis!.client.get(redisKeys.authEpoch(tenant.workspaceId));
    expect(before).toBe(await storedEpoch(tenant.workspaceId));
    await redis!.client.save();
    expect((await revoke(tenant, id)).status).toBe(204);
    await redis!.stop();
    await redis!.start();
    await replicasReconnected();
    // Back as the snapshot left it: the epoch the key was cached under.
    expect(await redis!.client.get(redisKeys.authEpoch(tenant.workspaceId))).toBe(before);

    const statuses = await statusesFor(key, 2_000);
    for (const replica of statuses) expect(replica.filter((status) => status < 300)).toEqual([]);
  });
  test("when a replica that never cached a key refuses it after Redis lost the change, then it publishes the epoch again, and a replica still holding the key cached refuses it too", async () => {
    const tenant = await seedTenant(system!);
    await tenant.team();
    const { id, key } = await tenant.keyWithId();
    const [fresh, holding] = system!.baseUrls as [string, string];
    for (let i = 0; i < 3; i++) expect((await apiClient(holding, key)("GET", "/v1/new-page")).status).toBe(200);
    const before = await redis!.client.get(redisKeys.authEpoch(tenant.workspaceId));
    expect((await revoke(tenant, id)).status).toBe(204);
    // The change lost where only some replicas read, as on a primary that a failover left behind.
    await redis!.client.set(redisKeys.authEpoch(tenant.workspaceId), before!);
    expect((await apiClient(fresh, key)("GET", "/v1/new-page")).status).toBe(401);
    const stored = await storedEpoch(tenant.workspaceId);
    for (let tries = 0; (await redis!.client.get(redisKeys.authEpoch(tenant.workspaceId))) !== stored; tries++) {
      if (tries > 40) throw new Error("the refusing replica did not publish the epoch again");
      await sleep(25);
    }
    expect((await apiClient(holding, key)("GET", "/v1/new-page")).status).toBe(401);
  });

  test("when Redis holds an epoch that is not a number (written by hand), then every replica reads its cached key again and serves it, and the workspace's epoch is published anew", async () => {
    const tenant = await seedTenant(system!);
    const { key } = await keyCachedEverywhere(tenant);
    await redis!.client.set(redisKeys.authEpoch(tenant.workspaceId), "not-a-number");
    for (const url of system!.baseUrls) expect((await apiClient(url, key)("GET", "/v1/new-page")).status).toBe(200);
    let published: string | null = null;
    for (let waited = 0; waited < 2000 && published !== (await storedEpoch(tenant.workspaceId)); waited += 100) {
      await sleep(100);
      published = await redis!.client.get(redisKeys.authEpoch(tenant.workspaceId));
    }
    expect(published).toBe(await storedEpoch(tenant.workspaceId));
  });

  test("when Redis holds an older epoch that no replica can tell from the newest (written back on open connections), then a cached key is read again once KEY_CACHE_MAX_AGE_MS has passed", async () => {
    const tenant = await seedTenant(system!);
    await tenant.team();
    const cachedAt = performance.now();
    const { id, key } = await keyCachedEverywhere(tenant);
    const before = await redis!.client.get(redisKeys.authEpoch(tenant.workspaceId));
    expect((await revoke(tenant, id)).status).toBe(204);
    await redis!.client.set(redisKeys.authEpoch(tenant.workspaceId), before!);
    await sleep(Math.max(0, cachedAt + KEY_CACHE_MAX_AGE_MS + 200 - performance.now()));
    for (const url of system!.baseUrls) expect((await apiClient(url, key)("GET", "/v1/new-page")).status).toBe(401);
  });
});

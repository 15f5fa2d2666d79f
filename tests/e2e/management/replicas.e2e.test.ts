import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { apiClient, managementClient } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";
import { seedWorkspaceData } from "./helpers";

const withDatastores = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
let system: TestSystem;
let tenant: Tenant;

describe.skipIf(!withDatastores)("management changes at two gateway replicas on real PostgreSQL and Redis", () => {
  beforeAll(async () => {
    system = await startSystem({ replicas: 2 });
    tenant = await seedTenant(system);
  });
  afterAll(async () => {
    await system?.stop();
  });

  /** The same key at each replica, each replica's cache warmed with it first. */
  async function atEveryReplica(key: string) {
    const calls = system.baseUrls.map((url) => apiClient(url, key));
    for (const call of calls) for (let i = 0; i < 2; i++) expect((await call("GET", "/v1/new-page")).status).toBe(200);
    return calls;
  }

  test("when a key is rotated through one replica, then the old secret works at both until its time and then answers 401 at both", async () => {
    const { id, key: oldKey } = await tenant.keyWithId();
    const oldCalls = await atEveryReplica(oldKey);
    const admin = managementClient(system.adminUrls[1]!, system.adminToken);
    const rotated = await admin("POST", `/admin/v1/workspaces/${tenant.workspaceId}/api-keys/${id}/rotate`, { grace_seconds: 3 });
    expect(rotated.status).toBe(200);
    const newCalls = system.baseUrls.map((url) => apiClient(url, rotated.body.key));
    for (const call of [...oldCalls, ...newCalls]) expect((await call("GET", "/v1/new-page")).status).toBe(200);

    const wait = new Date(rotated.body.previous_key_expires_at).getTime() - Date.now() + 50;
    if (wait > 0) await Bun.sleep(wait);
    for (const call of oldCalls) expectError(await call("GET", "/v1/new-page"), 401, "invalid_token");
    for (const call of newCalls) expect((await call("GET", "/v1/new-page")).status).toBe(200);
  });

  test("when a key is rotated without a grace through one replica, then the other refuses the old secret on its very next request", async () => {
    const { id, key: oldKey } = await tenant.keyWithId();
    const [, second] = await atEveryReplica(oldKey);
    await managementClient(system.adminUrls[0]!, system.adminToken)("POST", `/admin/v1/workspaces/${tenant.workspaceId}/api-keys/${id}/rotate`, {});
    expectError(await second!("GET", "/v1/new-page"), 401, "invalid_token");
  });

  test("when a key's rate limit is changed through one replica, then the other applies it from the request after the next", async () => {
    const { id, key } = await tenant.keyWithId();
    const [, second] = await atEveryReplica(key);
    await managementClient(system.adminUrls[0]!, system.adminToken)("PATCH", `/admin/v1/workspaces/${tenant.workspaceId}/api-keys/${id}`, { rate_limit_per_minute: 5 });
    await second!("GET", "/v1/new-page");
    expect((await second!("GET", "/v1/new-page")).headers.get("x-ratelimit-limit")).toBe("5");
  });

  test("when a workspace is deleted through one replica, then its keys answer 401 at both on their very next request", async () => {
    const doomed = await seedTenant(system);
    const { key } = await seedWorkspaceData(system, doomed);
    const calls = await atEveryReplica(key);
    expect((await managementClient(system.adminUrls[0]!, system.adminToken)("DELETE", `/admin/v1/workspaces/${doomed.workspaceId}`)).status).toBe(204);
    for (const call of calls) expectError(await call("GET", "/v1/new-page"), 401, "invalid_token");
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import postgres from "postgres";
import { apiClient } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";

const withDatastores = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
let system: TestSystem;
let tenant: Tenant;

describe.skipIf(!withDatastores)("two gateway replicas on real PostgreSQL and Redis", () => {
  beforeAll(async () => {
    system = await startSystem({ replicas: 2 });
    tenant = await seedTenant(system);
  });
  afterAll(async () => {
    await system?.stop();
  });

  test("when a key is revoked through one replica, then the other refuses it on its very next request", async () => {
    const { id, key } = await tenant.keyWithId();
    const [first, second] = system.baseUrls.map((url) => apiClient(url, key));
    // Warm both replicas' caches first.
    for (let i = 0; i < 3; i++) {
      expect((await first!("GET", "/v1/new-page")).status).toBe(200);
      expect((await second!("GET", "/v1/new-page")).status).toBe(200);
    }
    await apiClient(system.adminUrls[0]!, system.adminToken)("DELETE", `/admin/v1/workspaces/${tenant.workspaceId}/api-keys/${id}`);
    const next = await second!("GET", "/v1/new-page");
    expectError(next, 401, "invalid_token");
  });

  test("when a creator's role changes through one replica, then the other applies it on the very next request", async () => {
    const memberId = await tenant.member("member");
    const key = await tenant.key({ created_by: memberId, scopes: ["docs:read", "docs:create"] });
    const second = apiClient(system.baseUrls[1]!, key);
    expect((await second("GET", "/v1/new-page")).status).toBe(200);
    await apiClient(system.adminUrls[0]!, system.adminToken)("PATCH", `/admin/v1/workspaces/${tenant.workspaceId}/members/${memberId}`, { role: "guest" });
    const next = await second("POST", "/v1/new-page", { title: "not allowed any more" });
    expectError(next, 403, "forbidden");
  });

  test("when the keys table is read, then it holds only hashes and never a usable key", async () => {
    const { id, key } = await tenant.keyWithId();
    const sql = postgres(system.databaseUrl!, { max: 1 });
    try {
      const [row] = await sql`select * from api_keys where id = ${id}`;
      expect(row!.key_hash).toHaveLength(32);
      const everything = JSON.stringify(await sql`select * from api_keys`);
      expect(everything).not.toContain(key);
      expect(everything).not.toContain(key.slice(12));
    } finally {
      await sql.end();
    }
  });
});

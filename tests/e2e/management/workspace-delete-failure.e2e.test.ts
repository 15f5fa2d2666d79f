import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { apiClient, managementClient } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";
import { askService } from "./helpers";

// The gateway is pointed at a calendar service that is not there (nothing listens on port 1), so purging a workspace's calendar data fails.
let system: TestSystem;
beforeAll(async () => {
  system = await startSystem({ gatewayEnv: { CALENDAR_URL: "http://127.0.0.1:1" } });
});
afterAll(async () => {
  await system?.stop();
});

describe("deleting a workspace while a service is down", () => {
  test("when a service cannot delete the workspace's data, then it is 503, the keys are already refused, and the workspace stays for another try", async () => {
    const tenant = await seedTenant(system);
    const key = await tenant.key();
    const call = apiClient(system.baseUrl, key);
    expect((await call("POST", "/v1/new-page", { title: "kept until the retry" })).status).toBe(201);
    const admin = managementClient(system.adminUrl, system.adminToken);

    const failed = await admin("DELETE", `/admin/v1/workspaces/${tenant.workspaceId}`);
    expectError(failed, 503, "service_unavailable");
    expect(failed.body.error.message).toContain("calendar");
    expect(failed.body.error.message).not.toContain("127.0.0.1");

    expectError(await call("GET", "/v1/new-page"), 401, "invalid_token");
    expect((await admin("GET", `/admin/v1/workspaces/${tenant.workspaceId}`)).status).toBe(200);
    expect((await admin("GET", `/admin/v1/workspaces/${tenant.workspaceId}/api-keys`)).body.data[0].status).toBe("revoked");
    // The service that could purge did: a retry finds nothing more there.
    expect((await askService(system, "pages", tenant.workspaceId, "/v1/new-page")).body.total).toBe(0);
    expectError(await admin("DELETE", `/admin/v1/workspaces/${tenant.workspaceId}`), 503, "service_unavailable");
  });
});

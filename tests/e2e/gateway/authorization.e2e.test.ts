import { beforeAll, describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { apiClient } from "../../harness/http";
import { sharedSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";

let system: TestSystem;
let tenant: Tenant;
beforeAll(async () => {
  system = await sharedSystem();
  tenant = await seedTenant(system);
});

describe("scopes and the creator's role", () => {
  test("when the key lacks the route's scope, then it is 403 insufficient_permissions", async () => {
    const call = apiClient(system.baseUrl, await tenant.key({ scopes: ["docs:read"] }));
    const response = await call("POST", "/api/calendar/events", {});
    expectError(response, 403, "insufficient_permissions");
  });

  test("when the key lacks docs:delete, then deleting a page that does not exist is still 403 (scope before lookup)", async () => {
    const call = apiClient(system.baseUrl, await tenant.key({ scopes: ["docs:read"] }));
    const response = await call("DELETE", "/v1/new-page/00000000-0000-7000-8000-000000000000");
    expectError(response, 403, "insufficient_permissions");
  });

  test("when the key has a scope its creator's role does not allow, then it is 403 forbidden", async () => {
    const guest = await tenant.member("guest");
    const call = apiClient(system.baseUrl, await tenant.key({ created_by: guest, scopes: ["docs:read", "docs:create"] }));
    expect((await call("GET", "/v1/new-page")).status).toBe(200);
    const response = await call("POST", "/v1/new-page", { title: "x" });
    expectError(response, 403, "forbidden");
  });

  test("when the creator's role changes, then the next request is judged by the new role", async () => {
    const memberId = await tenant.member("member");
    const call = apiClient(system.baseUrl, await tenant.key({ created_by: memberId, scopes: ["docs:read", "docs:delete"] }));
    const missing = "/v1/new-page/00000000-0000-7000-8000-000000000000";
    expect((await call("DELETE", missing)).status).toBe(404);
    await tenant.admin.updateMember(tenant.workspaceId, memberId, { role: "guest" });
    const demoted = await call("DELETE", missing);
    expectError(demoted, 403, "forbidden");
    await tenant.admin.updateMember(tenant.workspaceId, memberId, { role: "member" });
    expect((await call("DELETE", missing)).status).toBe(404);
  });

  test("when a permissions object is given, then it expands to the scopes of its permission levels", async () => {
    const created = await tenant.admin.createKey(tenant.workspaceId, {
      name: "levels",
      created_by: tenant.ownerId,
      permissions: { calendar: "write", docs: "read", workflows: "run" },
    });
    expect([...created.scopes].sort()).toEqual(["calendar:create", "calendar:read", "calendar:update", "docs:read", "workflows:read", "workflows:run"]);
  });
});

describe("routing at the gateway", () => {
  test("when the path is unknown, then it is 404 not_found even without a key", async () => {
    const response = await apiClient(system.baseUrl)("GET", "/v2/nothing");
    expectError(response, 404, "not_found");
  });

  test("when the method is not allowed on a known path, then it is 405 with an Allow header", async () => {
    for (const method of ["PATCH", "PROPFIND", "OPTIONS"]) {
      const response = await apiClient(system.baseUrl)(method, "/v1/new-page/");
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("GET, HEAD, POST");
      expect(response.body.error.code).toBe("method_not_allowed");
    }
  });

  test("when a probe or documentation path is asked with another method, then it is 405 with Allow: GET, HEAD, without a key", async () => {
    for (const path of ["/healthz", "/readyz/", "/openapi.json", "/openapi.json/", "/docs", "/docs/"]) {
      for (const method of ["POST", "DELETE", "OPTIONS"]) {
        const response = await apiClient(system.baseUrl)(method, path);
        expect({ path, method, status: response.status, allow: response.headers.get("allow") }).toEqual({ path, method, status: 405, allow: "GET, HEAD" });
        expect(response.body.error.code).toBe("method_not_allowed");
      }
    }
    // The page's assets are not in the document (whose paths the client checks answers against): asked plainly.
    for (const asset of ["swagger-ui.css", "docs-init.js"]) {
      const response = await fetch(`${system.baseUrl}/docs/assets/${asset}`, { method: "PUT" });
      expect({ asset, status: response.status, allow: response.headers.get("allow") }).toEqual({ asset, status: 405, allow: "GET, HEAD" });
      expect((await response.json()).error.code).toBe("method_not_allowed");
    }
    // Not a path the documentation serves: unknown, whatever the method.
    expect((await fetch(`${system.baseUrl}/docs/assets/nothing.js`, { method: "POST" })).status).toBe(404);
  });

  test("when the OpenAPI document is asked for with a trailing slash, then it is the document", async () => {
    const response = await apiClient(system.baseUrl)("GET", "/openapi.json/");
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe("3.1.0");
  });

  test("when a path of the internal port is asked with another method, then it is 405 with Allow, without the admin token", async () => {
    const cases: [string, string, string][] = [
      ["PUT", "/admin/v1/workspaces", "GET, HEAD, POST"],
      ["PATCH", "/admin/v1/workspaces/00000000-0000-7000-8000-000000000000/", "GET, HEAD, DELETE"],
      ["POST", "/metrics", "GET, HEAD"],
      ["DELETE", "/healthz", "GET, HEAD"],
      ["POST", "/admin/v1/openapi.json", "GET, HEAD"],
    ];
    for (const [method, path, allow] of cases) {
      const response = await apiClient(system.adminUrl)(method, path);
      expect({ method, path, status: response.status, allow: response.headers.get("allow"), code: response.body?.error?.code }).toEqual({ method, path, status: 405, allow, code: "method_not_allowed" });
    }
    const documentation = await apiClient(system.adminUrl)("GET", "/admin/v1/openapi.json/");
    expect(documentation.status).toBe(200);
  });

  test("when the management API is asked for on the public port, then it is not there", async () => {
    const response = await apiClient(system.baseUrl)("POST", "/admin/v1/workspaces", { name: "x" });
    expect(response.status).toBe(404);
  });
});

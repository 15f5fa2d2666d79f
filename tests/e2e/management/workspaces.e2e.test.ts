import { beforeAll, describe, expect, test } from "bun:test";
import { fillPath, signPrincipal, signingKeyFrom, signWorkspacePurge, WORKSPACE_PURGE_HEADER, WORKSPACE_PURGE_PATH, uuidv7 } from "@ws/shared";
import { expectError } from "../../harness/assertions";
import { apiClient, managementClient } from "../../harness/http";
import { sharedSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";
import { askService, rowsOfWorkspace, seedWorkspaceData } from "./helpers";

let system: TestSystem;
let admin: ReturnType<typeof managementClient>;
beforeAll(async () => {
  system = await sharedSystem();
  admin = managementClient(system.adminUrl, system.adminToken);
});

describe("listing and reading workspaces", () => {
  test("when workspaces are listed by a name filter, then the matching ones come oldest first, paged in the list envelope", async () => {
    const marker = `list-${uuidv7()}`;
    const created = [];
    for (const suffix of ["a", "b", "c"]) created.push((await admin("POST", "/admin/v1/workspaces", { name: `k6 ${marker} ${suffix}` })).body);
    const first = await admin("GET", `/admin/v1/workspaces?name=${encodeURIComponent(marker.toUpperCase())}&per_page=2`);
    expect(first.status).toBe(200);
    expect({ total: first.body.total, page: first.body.page, per_page: first.body.per_page }).toEqual({ total: 3, page: 1, per_page: 2 });
    const second = await admin("GET", `/admin/v1/workspaces?name=${encodeURIComponent(marker)}&per_page=2&page=2`);
    expect([...first.body.data, ...second.body.data].map((workspace: { id: string }) => workspace.id)).toEqual(created.map((workspace) => workspace.id));
  });

  test("when the name filter holds LIKE's wildcards, then they match only themselves", async () => {
    const marker = uuidv7();
    await admin("POST", "/admin/v1/workspaces", { name: `100% ${marker}` });
    expect((await admin("GET", `/admin/v1/workspaces?name=${encodeURIComponent(`100% ${marker}`)}`)).body.total).toBe(1);
    expect((await admin("GET", `/admin/v1/workspaces?name=${encodeURIComponent(`1_0 ${marker}`)}`)).body.total).toBe(0);
  });

  test("when the name filter holds a NUL character, then it matches nothing: 200 with an empty list, not a 500", async () => {
    for (const name of ["%00", "a%00b"]) {
      const listed = await admin("GET", `/admin/v1/workspaces?name=${name}`);
      expect(listed.status).toBe(200);
      expect(listed.body).toMatchObject({ data: [], total: 0, page: 1, per_page: 20 });
    }
  });

  test("when a workspace is read, then it answers its id, name and creation time; an unknown or malformed id is 404", async () => {
    const created = await admin("POST", "/admin/v1/workspaces", { name: "Readable" });
    const read = await admin("GET", `/admin/v1/workspaces/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    expectError(await admin("GET", `/admin/v1/workspaces/${uuidv7()}`), 404, "not_found");
    expectError(await admin("GET", "/admin/v1/workspaces/not-a-uuid"), 404, "not_found");
  });

  test("when the paging parameters are out of range, then 422 says per parameter what is allowed", async () => {
    const response = await admin("GET", "/admin/v1/workspaces?page=0&per_page=x");
    expectError(response, 422, "validation_error", ["per_page"]);
    expect(response.body.error.details.errors[0]).toMatchObject({ field: "per_page", rule: "type" });
    const zero = await admin("GET", "/admin/v1/workspaces?page=0");
    expect(zero.body.error.details.errors).toEqual([{ field: "page", rule: "range", message: "page must be an integer from 1 to 9007199254740991 (got 0)", allowed: { min: 1, max: 9007199254740991 } }]);
    // A page no JSON number holds exactly is refused, not reported back changed.
    expectError(await admin("GET", "/admin/v1/workspaces?page=99999999999999999999"), 422, "validation_error", ["page"]);
  });
});

describe("deleting a workspace", () => {
  test("when a workspace is deleted, then its keys, pages, calendars and events are gone and other workspaces keep theirs", async () => {
    const doomed = await seedTenant(system);
    const kept = await seedTenant(system);
    const { key } = await seedWorkspaceData(system, doomed);
    const keptData = await seedWorkspaceData(system, kept);
    const doomedCall = apiClient(system.baseUrl, key);
    expect((await doomedCall("GET", "/v1/new-page")).body.total).toBe(1);

    expect((await admin("DELETE", `/admin/v1/workspaces/${doomed.workspaceId}`)).status).toBe(204);

    expectError(await doomedCall("GET", "/v1/new-page"), 401, "invalid_token");
    expectError(await admin("GET", `/admin/v1/workspaces/${doomed.workspaceId}`), 404, "not_found");
    expectError(await admin("GET", `/admin/v1/workspaces/${doomed.workspaceId}/api-keys`), 404, "not_found");
    expect((await askService(system, "pages", doomed.workspaceId, "/v1/new-page")).body.total).toBe(0);
    expect((await askService(system, "calendar", doomed.workspaceId, "/api/calendar/events")).body.total).toBe(0);
    expect((await askService(system, "calendar", doomed.workspaceId, "/api/calendar/calendars")).body.total).toBe(0);

    const keptCall = apiClient(system.baseUrl, keptData.key);
    expect((await keptCall("GET", `/v1/new-page/${keptData.pageId}`)).status).toBe(200);
    expect((await keptCall("GET", "/api/calendar/events")).body.total).toBe(1);

    if (system.databaseUrl) {
      const rows = await rowsOfWorkspace(system.databaseUrl, doomed.workspaceId);
      expect(rows).toEqual({ api_keys: 0, members: 0, teams: 0, workspaces: 0, pages: 0, calendars: 0, calendar_events: 0 });
    }
  });

  test("when the deletion is read in the audit log, then it says what went: keys revoked and rows per service", async () => {
    const doomed = await seedTenant(system);
    await seedWorkspaceData(system, doomed);
    await admin("DELETE", `/admin/v1/workspaces/${doomed.workspaceId}`);
    const log = await admin("GET", `/admin/v1/workspaces/${doomed.workspaceId}/audit-log`);
    expect(log.status).toBe(200);
    const deletion = log.body.data[0];
    expect(deletion).toMatchObject({ action: "workspace.delete", resource_type: "workspace", resource_id: doomed.workspaceId });
    expect(deletion.after).toEqual({ keys_revoked: 1, services: { pages: { pages: 1 }, calendar: { events: 1, calendars: 1 } } });
    expect(deletion.before.id).toBe(doomed.workspaceId);
  });

  test("when a workspace is deleted twice, or an unknown or malformed one, then it is 404", async () => {
    const doomed = await seedTenant(system);
    expect((await admin("DELETE", `/admin/v1/workspaces/${doomed.workspaceId}`)).status).toBe(204);
    expectError(await admin("DELETE", `/admin/v1/workspaces/${doomed.workspaceId}`), 404, "not_found");
    expectError(await admin("DELETE", `/admin/v1/workspaces/${uuidv7()}`), 404, "not_found");
    expectError(await admin("DELETE", "/admin/v1/workspaces/nope"), 404, "not_found");
  });
});

describe("the services' purge path", () => {
  const purge = (base: string, workspaceId: string, token?: string) =>
    fetch(`${base}${fillPath(WORKSPACE_PURGE_PATH, { ws: workspaceId })}`, { method: "DELETE", headers: token ? { [WORKSPACE_PURGE_HEADER]: token } : {} });

  test("when a purge order is missing, forged, for another workspace or a principal in disguise, then the service refuses it with 401 and keeps the data", async () => {
    const tenant = await seedTenant(system);
    await seedWorkspaceData(system, tenant);
    const path = fillPath(WORKSPACE_PURGE_PATH, { ws: tenant.workspaceId });
    const key = signingKeyFrom(system.signingKey);
    const orders = [
      undefined,
      signWorkspacePurge(tenant.workspaceId, { method: "DELETE", path, requestId: "t" }, signingKeyFrom("x".repeat(43))),
      signWorkspacePurge(uuidv7(), { method: "DELETE", path, requestId: "t" }, key),
      signPrincipal(
        { workspace_id: tenant.workspaceId, member_id: uuidv7(), key_id: uuidv7(), scopes: ["docs:delete"], target_team_ids: null, visible_team_ids: [], request_id: "t" },
        { method: "DELETE", path },
        key,
      ),
    ];
    for (const base of [system.pagesUrl, system.calendarUrl]) {
      for (const order of orders) expect((await purge(base, tenant.workspaceId, order)).status).toBe(401);
    }
    expect((await askService(system, "pages", tenant.workspaceId, "/v1/new-page")).body.total).toBe(1);
    expect((await askService(system, "calendar", tenant.workspaceId, "/api/calendar/events")).body.total).toBe(1);
  });

  test("when the public gateway is asked for the purge path, then it is not there", async () => {
    const response = await apiClient(system.baseUrl)("DELETE", fillPath(WORKSPACE_PURGE_PATH, { ws: uuidv7() }));
    expectError(response, 404, "not_found");
  });
});

import { beforeAll, describe, expect, test } from "bun:test";
import { uuidv7 } from "@ws/shared";
import { expectError } from "../../harness/assertions";
import { managementClient } from "../../harness/http";
import { sharedSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";

let system: TestSystem;
let tenant: Tenant;
let admin: ReturnType<typeof managementClient>;
beforeAll(async () => {
  system = await sharedSystem();
  tenant = await seedTenant(system);
  admin = managementClient(system.adminUrl, system.adminToken);
});

const ws = () => `/admin/v1/workspaces/${tenant.workspaceId}`;

describe("members", () => {
  test("when members are listed, then every member comes oldest first with role, activity and teams, paged", async () => {
    const team = await tenant.team();
    const guest = await tenant.member("guest", [team]);
    const all = await admin("GET", `${ws()}/members`);
    expect(all.status).toBe(200);
    expect(all.body.data[0].id).toBe(tenant.ownerId);
    expect(all.body.data.at(-1).id).toBe(guest);
    expect(all.body.data.find((member: { id: string }) => member.id === guest)).toMatchObject({ role: "guest", active: true, team_ids: [team] });
    const paged = await admin("GET", `${ws()}/members?per_page=1&page=2`);
    expect({ total: paged.body.total, count: paged.body.data.length, id: paged.body.data[0].id }).toEqual({ total: all.body.total, count: 1, id: all.body.data[1].id });
  });

  test("when a member is read and renamed, then the answer is the member as stored", async () => {
    const member = await tenant.member("member");
    const read = await admin("GET", `${ws()}/members/${member}`);
    expect(read.status).toBe(200);
    expect(Object.keys(read.body).sort()).toEqual(["active", "email", "id", "name", "role", "team_ids"]);
    const renamed = await admin("PATCH", `${ws()}/members/${member}`, { name: "Ada Lovelace" });
    expect(renamed.body).toEqual({ ...read.body, name: "Ada Lovelace" });
    expect((await admin("PATCH", `${ws()}/members/${member}`, { name: null })).body.name).toBeNull();
  });

  test("when a member id is unknown, malformed or of another workspace, then it is 404", async () => {
    const other = await seedTenant(system);
    for (const id of [uuidv7(), "nope", other.ownerId]) {
      expectError(await admin("GET", `${ws()}/members/${id}`), 404, "not_found");
      expectError(await admin("PATCH", `${ws()}/members/${id}`, { role: "guest" }), 404, "not_found");
    }
  });

  test("when a member body breaks its rules, then 422 says per field what is allowed", async () => {
    const bad = await admin("POST", `${ws()}/members`, { email: "not-an-email", role: "king" });
    expectError(bad, 422, "validation_error", ["email", "role"]);
    expect(bad.body.error.details.errors).toEqual([
      { field: "email", rule: "format", message: "email must be an email address", allowed: "email" },
      { field: "role", rule: "one_of", message: "role must be one of owner, admin, member, guest", allowed: ["owner", "admin", "member", "guest"] },
    ]);
    const taken = await admin("POST", `${ws()}/members`, { email: (await admin("GET", `${ws()}/members/${tenant.ownerId}`)).body.email, role: "guest" });
    expect(taken.body.error.details.errors).toEqual([{ field: "email", rule: "unique", message: "A member with this email already exists" }]);
    const foreignTeam = await admin("PATCH", `${ws()}/members/${tenant.ownerId}`, { team_ids: [uuidv7()] });
    expect(foreignTeam.body.error.details.errors[0]).toMatchObject({ field: "team_ids", rule: "reference" });
  });
});

describe("teams", () => {
  test("when teams are listed, then the workspace's teams come oldest first and no other workspace's", async () => {
    const fresh = await seedTenant(system);
    expect((await admin("GET", `/admin/v1/workspaces/${fresh.workspaceId}/teams`)).body).toEqual({ data: [], total: 0, page: 1, per_page: 20 });
    const first = await fresh.team("Platform");
    const second = await fresh.team("Design");
    await tenant.team("Elsewhere");
    const listed = await admin("GET", `/admin/v1/workspaces/${fresh.workspaceId}/teams`);
    expect(listed.body).toEqual({
      data: [
        { id: first, name: "Platform" },
        { id: second, name: "Design" },
      ],
      total: 2,
      page: 1,
      per_page: 20,
    });
    expectError(await admin("GET", `/admin/v1/workspaces/${uuidv7()}/teams`), 404, "not_found");
  });
});

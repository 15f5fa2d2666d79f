import { beforeAll, describe, expect, test } from "bun:test";
import { apiClient } from "../../harness/http";
import { sharedSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";

let system: TestSystem;
let tenant: Tenant;
beforeAll(async () => {
  system = await sharedSystem();
  tenant = await seedTenant(system);
});

describe("list totals", () => {
  test("when pages are created and deleted at workspace level and in teams, then every key's total stays exact", async () => {
    const [red, blue] = [await tenant.team("red"), await tenant.team("blue")];
    const owner = apiClient(system.baseUrl, await tenant.key());
    const redKey = apiClient(system.baseUrl, await tenant.key({ team_ids: [red] }));
    const member = await tenant.member("member", [blue]);
    const blueMember = apiClient(system.baseUrl, await tenant.key({ created_by: member }));
    const ids: Record<string, string[]> = { none: [], red: [], blue: [] };
    for (const [team, teamId, count] of [["none", undefined, 3], ["red", red, 4], ["blue", blue, 5]] as const) {
      for (let i = 0; i < count; i++) {
        const created = await owner("POST", "/v1/new-page", { title: `${team} ${i}`, ...(teamId ? { team_id: teamId } : {}) });
        expect(created.status).toBe(201);
        ids[team]!.push(created.body.id);
      }
    }
    const total = async (call: typeof owner, query = "") => (await call("GET", `/v1/new-page?per_page=1${query}`)).body.total;
    expect(await total(owner)).toBe(12);
    expect(await total(redKey)).toBe(4);
    expect(await total(blueMember)).toBe(3 + 5);

    expect((await owner("DELETE", `/v1/new-page/${ids.red![0]}`)).status).toBe(204);
    expect((await owner("DELETE", `/v1/new-page/${ids.none![0]}`)).status).toBe(204);
    expect(await total(owner)).toBe(10);
    expect(await total(redKey)).toBe(3);
    expect(await total(blueMember)).toBe(2 + 5);
    // The filtered total counts matches and must agree with the unfiltered one.
    expect(await total(owner, "&title=%20")).toBe(10);
  });
});

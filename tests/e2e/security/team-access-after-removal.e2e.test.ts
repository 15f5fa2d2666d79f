import { describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { apiClient, type Call } from "../../harness/http";
import { sharedSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";

/**
 * A team-scoped key may do only what its creator can still see: when the creator
 * leaves the key's team (or is demoted out of it), every operation of the key on
 * that team stops, and the key's other powers are untouched.
 */

const PAGES = "/v1/new-page";
const CALENDARS = "/api/calendar/calendars";
const EVENTS = "/api/calendar/events";
const FULL = { docs: "full", calendar: "full" };
const event = (calendarId: string) => ({ calendar_id: calendarId, title: "x", starts_at: "2026-03-02T10:00:00Z", ends_at: "2026-03-02T11:00:00Z" });

interface Scene {
  tenant: Tenant;
  teamT: string;
  owner: Call;
  key: Call;
  page: { id: string };
  calendar: { id: string };
}

/** Team T with a page, a calendar and an event made by the owner; `key` targets T and was made by `creator`. */
async function scene(creator: (tenant: Tenant, teamT: string) => Promise<string>): Promise<Scene & { creatorId: string }> {
  const system = await sharedSystem();
  const tenant = await seedTenant(system);
  const teamT = await tenant.team("T");
  const owner = apiClient(system.baseUrl, await tenant.key());
  const page = (await owner("POST", PAGES, { title: "in T", team_id: teamT })).body;
  const calendar = (await owner("POST", CALENDARS, { name: "T", team_id: teamT })).body;
  expect((await owner("POST", EVENTS, event(calendar.id))).status).toBe(201);
  const creatorId = await creator(tenant, teamT);
  const key = apiClient(system.baseUrl, await tenant.key({ created_by: creatorId, team_ids: [teamT], permissions: FULL }));
  return { tenant, teamT, owner, key, page, calendar, creatorId };
}

/** Every operation of the key works on team T while its creator can see T. */
async function expectFullAccess({ key, teamT, page, calendar }: Scene): Promise<void> {
  expect((await key("POST", PAGES, { title: "default" })).body.team_id).toBe(teamT);
  expect((await key("POST", PAGES, { title: "named", team_id: teamT })).status).toBe(201);
  expect((await key("GET", `${PAGES}/${page.id}`)).status).toBe(200);
  expect((await key("PUT", `${PAGES}/${page.id}`, { content: "edited" })).status).toBe(200);
  expect((await key("GET", PAGES)).body.total).toBeGreaterThanOrEqual(3);
  expect((await key("POST", CALENDARS, { name: "default" })).body.team_id).toBe(teamT);
  expect((await key("POST", CALENDARS, { name: "named", team_id: teamT })).status).toBe(201);
  expect((await key("GET", CALENDARS)).body.total).toBeGreaterThanOrEqual(3);
  expect((await key("POST", EVENTS, event(calendar.id))).status).toBe(201);
  expect((await key("GET", EVENTS)).body.total).toBeGreaterThanOrEqual(2);
}

/** Every operation of the key on team T is refused, as for a key whose creator never saw T. */
async function expectNoAccess({ key, owner, teamT, page, calendar }: Scene): Promise<void> {
  // Create without team_id: the key's only team is no longer the creator's, so there is nowhere to put it.
  expectError(await key("POST", PAGES, { title: "default" }), 403, "insufficient_permissions");
  expectError(await key("POST", PAGES, { title: "named", team_id: teamT }), 404, "not_found", ["team_id"]);
  expectError(await key("GET", `${PAGES}/${page.id}`), 404, "not_found");
  expectError(await key("PUT", `${PAGES}/${page.id}`, { content: "no" }), 404, "not_found");
  expectError(await key("DELETE", `${PAGES}/${page.id}`), 404, "not_found");
  expect((await key("GET", PAGES)).body).toMatchObject({ data: [], total: 0 });

  expectError(await key("POST", CALENDARS, { name: "default" }), 403, "insufficient_permissions");
  expectError(await key("POST", CALENDARS, { name: "named", team_id: teamT }), 404, "not_found", ["team_id"]);
  expect((await key("GET", CALENDARS)).body).toMatchObject({ data: [], total: 0 });
  expectError(await key("POST", EVENTS, event(calendar.id)), 404, "not_found");
  expect((await key("GET", EVENTS)).body).toMatchObject({ data: [], total: 0 });

  expect((await owner("GET", `${PAGES}/${page.id}`)).body.content).toBe("edited");
}

describe("a team-targeted key after its creator leaves the team", () => {
  test("when a member is removed from the key's team, then every operation of the key on that team is refused, and it works again once they are back", async () => {
    const s = await scene((tenant, teamT) => tenant.member("member", [teamT]));
    await expectFullAccess(s);
    const before = (await s.owner("GET", PAGES)).body.total;

    await s.tenant.admin.updateMember(s.tenant.workspaceId, s.creatorId, { team_ids: [] });
    await expectNoAccess(s);
    expect((await s.owner("GET", PAGES)).body.total).toBe(before);

    await s.tenant.admin.updateMember(s.tenant.workspaceId, s.creatorId, { team_ids: [s.teamT] });
    expect((await s.key("POST", PAGES, { title: "back" })).body.team_id).toBe(s.teamT);
    expect((await s.key("DELETE", `${PAGES}/${s.page.id}`)).status).toBe(204);
  });

  test("when a create with an Idempotency-Key is sent again after the creator left the team, then its first answer is not replayed: the key's access changed", async () => {
    const s = await scene((tenant, teamT) => tenant.member("member", [teamT]));
    const idempotencyKey = { "idempotency-key": `after-removal-${crypto.randomUUID()}` };
    const first = await s.key("POST", PAGES, { title: "secret plan" }, idempotencyKey);
    expect(first.status).toBe(201);
    expect((await s.key("POST", PAGES, { title: "secret plan" }, idempotencyKey)).headers.get("idempotency-replayed")).toBe("true");

    await s.tenant.admin.updateMember(s.tenant.workspaceId, s.creatorId, { team_ids: [] });
    const again = await s.key("POST", PAGES, { title: "secret plan" }, idempotencyKey);
    expectError(again, 422, "idempotency_key_reused", ["Idempotency-Key"]);
    expect(again.headers.get("idempotency-replayed")).toBeNull();
    expect(JSON.stringify(again.body)).not.toContain(first.body.id);
  });

  test("when an owner outside the team is demoted to member, then every operation of the key on that team is refused, and promotion restores it", async () => {
    const s = await scene((tenant) => tenant.member("owner"));
    await expectFullAccess(s);

    await s.tenant.admin.updateMember(s.tenant.workspaceId, s.creatorId, { role: "member" });
    await expectNoAccess(s);

    await s.tenant.admin.updateMember(s.tenant.workspaceId, s.creatorId, { role: "admin" });
    expect((await s.key("POST", CALENDARS, { name: "back" })).body.team_id).toBe(s.teamT);
  });

  test("when a key has two teams and its creator leaves one, then it keeps working in the other and the one left is refused", async () => {
    const system = await sharedSystem();
    const tenant = await seedTenant(system);
    const [teamA, teamB] = [await tenant.team("A"), await tenant.team("B")];
    const memberId = await tenant.member("member", [teamA, teamB]);
    const key = apiClient(system.baseUrl, await tenant.key({ created_by: memberId, team_ids: [teamA, teamB], permissions: FULL }));
    const inB = (await key("POST", PAGES, { title: "in B", team_id: teamB })).body;

    await tenant.admin.updateMember(tenant.workspaceId, memberId, { team_ids: [teamA] });
    expect((await key("POST", PAGES, { title: "in A", team_id: teamA })).status).toBe(201);
    expectError(await key("POST", PAGES, { title: "in B", team_id: teamB }), 404, "not_found", ["team_id"]);
    // Still two teams on the key: naming one stays required, as before the change.
    expectError(await key("POST", PAGES, { title: "which" }), 422, "validation_error", ["team_id"]);
    expectError(await key("GET", `${PAGES}/${inB.id}`), 404, "not_found");
    expect((await key("GET", PAGES)).body.data.map((p: { team_id: string }) => p.team_id)).toEqual([teamA]);
  });
});

import { describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { apiClient } from "../../harness/http";
import { sharedSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";
import { calendarTenant, eventBody } from "./helpers";

async function system() {
  return sharedSystem();
}

describe("scopes", () => {
  test("when a calendar:read key creates an event or a calendar, then 403 insufficient_permissions", async () => {
    const { tenant, calendarId, baseUrl } = await calendarTenant();
    const read = apiClient(baseUrl, await tenant.key({ scopes: ["calendar:read"] }));
    for (const [path, body] of [["/api/calendar/events/", eventBody(calendarId)], ["/api/calendar/calendars/", { name: "x" }]] as const) {
      const response = await read("POST", path, body);
      expectError(response, 403, "insufficient_permissions");
    }
    expect((await read("GET", "/api/calendar/events/")).status).toBe(200);
    expect((await read("GET", "/api/calendar/calendars/")).status).toBe(200);
  });

  test("when a calendar:create key without calendar:read lists events, then 403", async () => {
    const { tenant, calendarId, baseUrl } = await calendarTenant();
    const create = apiClient(baseUrl, await tenant.key({ scopes: ["calendar:create"] }));
    expect((await create("POST", "/api/calendar/events/", eventBody(calendarId))).status).toBe(201);
    expect((await create("GET", "/api/calendar/events/")).status).toBe(403);
  });

  test("when a docs-only key touches any calendar path, then 403 insufficient_permissions", async () => {
    const { tenant, calendarId, baseUrl } = await calendarTenant();
    const docs = apiClient(baseUrl, await tenant.key({ permissions: { docs: "full" } }));
    for (const [method, path, body] of [
      ["POST", "/api/calendar/events/", eventBody(calendarId)],
      ["GET", "/api/calendar/events/", undefined],
      ["POST", "/api/calendar/calendars/", { name: "x" }],
      ["GET", "/api/calendar/calendars/", undefined],
    ] as const) {
      expectError(await docs(method, path, body), 403, "insufficient_permissions");
    }
  });

  test("when no key is sent, then 401 missing_token", async () => {
    const anonymous = apiClient((await system()).baseUrl);
    expect((await anonymous("GET", "/api/calendar/events/")).body.error.code).toBe("missing_token");
  });
});

describe("team targeting", () => {
  async function teams() {
    const { tenant, call, calendarId: workspaceCalendar, baseUrl } = await calendarTenant();
    const teamA = await tenant.team("A");
    const teamB = await tenant.team("B");
    const calendarA = (await call("POST", "/api/calendar/calendars/", { name: "A", team_id: teamA })).body;
    const calendarB = (await call("POST", "/api/calendar/calendars/", { name: "B", team_id: teamB })).body;
    const keyA = apiClient(baseUrl, await tenant.key({ team_ids: [teamA] }));
    return { tenant, call, baseUrl, teamA, teamB, workspaceCalendar, calendarA, calendarB, keyA };
  }

  test("when a team-scoped key creates an event in its team's calendar, then 201", async () => {
    const { keyA, calendarA } = await teams();
    expect(calendarA.team_id).toBeString();
    expect((await keyA("POST", "/api/calendar/events/", eventBody(calendarA.id))).status).toBe(201);
  });

  test("when a team-scoped key creates an event in another team's or a workspace-level calendar, then 403", async () => {
    const { keyA, calendarB, workspaceCalendar } = await teams();
    for (const id of [calendarB.id, workspaceCalendar]) {
      const response = await keyA("POST", "/api/calendar/events/", eventBody(id));
      expectError(response, 403, "insufficient_permissions");
    }
  });

  test("when a team-scoped key lists, then it sees only its team's calendars and events", async () => {
    const { call, keyA, calendarA, calendarB, workspaceCalendar } = await teams();
    for (const id of [calendarA.id, calendarB.id, workspaceCalendar]) {
      expect((await call("POST", "/api/calendar/events/", eventBody(id))).status).toBe(201);
    }
    const events = await keyA("GET", "/api/calendar/events/");
    expect(events.body.total).toBe(1);
    expect(events.body.data.map((e: { calendar_id: string }) => e.calendar_id)).toEqual([calendarA.id]);
    const calendars = await keyA("GET", "/api/calendar/calendars/");
    expect(calendars.body.data.map((c: { id: string }) => c.id)).toEqual([calendarA.id]);
    expect((await call("GET", "/api/calendar/events/")).body.total).toBe(3);
  });

  test("when a team-scoped key with one team creates a calendar without team_id, then it goes into that team", async () => {
    const { keyA, teamA, teamB } = await teams();
    expect((await keyA("POST", "/api/calendar/calendars/", { name: "Mine" })).body.team_id).toBe(teamA);
    const other = await keyA("POST", "/api/calendar/calendars/", { name: "Theirs", team_id: teamB });
    expectError(other, 403, "insufficient_permissions");
  });

  test("when team_id names the team in capitals, then the calendar goes into that team, for the team's key and for a workspace-wide key", async () => {
    const { call, keyA, teamA } = await teams();
    for (const client of [keyA, call]) {
      const created = await client("POST", "/api/calendar/calendars/", { name: "Capitals", team_id: teamA.toUpperCase() });
      expect({ status: created.status, team_id: created.body.team_id }).toEqual({ status: 201, team_id: teamA });
    }
  });

  test("when a key with two teams creates a calendar without team_id, then 400 naming team_id", async () => {
    const { tenant, baseUrl, teamA, teamB } = await teams();
    const both = apiClient(baseUrl, await tenant.key({ team_ids: [teamA, teamB] }));
    const response = await both("POST", "/api/calendar/calendars/", { name: "Which" });
    expect(response.status).toBe(400);
    expect(response.body.error.details.fields).toEqual(["team_id"]);
    expect((await both("POST", "/api/calendar/calendars/", { name: "B", team_id: teamB })).body.team_id).toBe(teamB);
  });

  test("when a key of a member outside a team uses that team's calendar, then 404; its own team's works", async () => {
    const { tenant, baseUrl, teamA, calendarA, calendarB } = await teams();
    const memberId = await tenant.member("member", [teamA]);
    const memberKey = apiClient(baseUrl, await tenant.key({ created_by: memberId }));
    const hidden = await memberKey("POST", "/api/calendar/events/", eventBody(calendarB.id));
    expectError(hidden, 404, "not_found");
    expect((await memberKey("POST", "/api/calendar/events/", eventBody(calendarA.id))).status).toBe(201);
    const listed = await memberKey("GET", "/api/calendar/calendars/");
    expect(listed.body.data.map((c: { id: string }) => c.id)).not.toContain(calendarB.id);
  });
});

describe("cross-workspace isolation", () => {
  test("when a key of another workspace uses a calendar, then 404 and its lists stay empty", async () => {
    const { call, calendarId } = await calendarTenant();
    expect((await call("POST", "/api/calendar/events/", eventBody(calendarId))).status).toBe(201);
    const other = await seedTenant(await system());
    const stranger = apiClient((await system()).baseUrl, await other.key());
    const response = await stranger("POST", "/api/calendar/events/", eventBody(calendarId));
    expectError(response, 404, "not_found");
    expect((await stranger("GET", "/api/calendar/events/")).body).toEqual({ data: [], total: 0, page: 1, per_page: 20 });
    expect((await stranger("GET", `/api/calendar/events/?calendar_id=${calendarId}`)).body.total).toBe(0);
    expect((await stranger("GET", "/api/calendar/calendars/")).body.total).toBe(0);
  });
});

describe("POST /api/calendar/calendars/", () => {
  test.each([
    ["an empty name", { name: "" }],
    ["a blank name", { name: "  \t" }],
    ["256 characters", { name: "x".repeat(256) }],
    ["no name", {}],
    ["a numeric name", { name: 5 }],
    ["a malformed team_id", { name: "x", team_id: "nope" }],
  ])("when the body has %s, then 400 naming the field", async (_, body) => {
    const { call } = await calendarTenant();
    const response = await call("POST", "/api/calendar/calendars/", body);
    expectError(response, 400, "bad_request");
    expect(response.body.error.details.fields.length).toBeGreaterThan(0);
  });

  test("when the name is 255 emoji, then 201 with the name", async () => {
    const { call } = await calendarTenant();
    const name = "📅".repeat(255);
    const response = await call("POST", "/api/calendar/calendars/", { name });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ id: expect.any(String), name, team_id: null, created_at: expect.stringMatching(/Z$/), updated_at: expect.stringMatching(/Z$/) });
    // Both to the microsecond: right after creation the two strings are equal.
    expect(response.body.updated_at).toBe(response.body.created_at);
  });

  test("when team_id names a team of another workspace, then 404 not_found naming team_id, as anything the creator cannot see", async () => {
    const { call } = await calendarTenant();
    const other = await seedTenant(await system());
    const response = await call("POST", "/api/calendar/calendars/", { name: "x", team_id: await other.team() });
    expectError(response, 404, "not_found", ["team_id"]);
  });

  test("when calendars are listed, then they come in creation order in the envelope", async () => {
    const { call, calendarId } = await calendarTenant();
    const second = (await call("POST", "/api/calendar/calendars/", { name: "Second" })).body.id;
    const response = await call("GET", "/api/calendar/calendars/?per_page=1&page=2");
    expect(response.body).toMatchObject({ total: 2, page: 2, per_page: 1 });
    expect(response.body.data.map((c: { id: string }) => c.id)).toEqual([second]);
    expect((await call("GET", "/api/calendar/calendars/")).body.data[0].id).toBe(calendarId);
  });
});

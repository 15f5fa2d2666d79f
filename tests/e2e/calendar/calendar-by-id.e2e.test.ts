import { describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { apiClient } from "../../harness/http";
import { calendarTenant, eventBody } from "./helpers";

const CALENDARS = "/api/calendar/calendars";
const MISSING = "0190a5e0-0000-7000-8000-000000000000";

describe("get a calendar", () => {
  test("when it is read by id, then 200 with the calendar as listed and its ETag; unknown or malformed ids are 404", async () => {
    const { call, calendarId } = await calendarTenant();
    const read = await call("GET", `${CALENDARS}/${calendarId}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual((await call("GET", CALENDARS)).body.data[0]);
    expect(read.headers.get("etag")).toMatch(/^"\d+-[0-9a-f-]{36}"$/);
    expectError(await call("GET", `${CALENDARS}/${MISSING}`), 404, "not_found");
    expectError(await call("GET", `${CALENDARS}/not-a-uuid`), 404, "not_found");
  });

  test("when it is created, then Location names where it is read", async () => {
    const { call } = await calendarTenant();
    const created = await call("POST", CALENDARS, { name: "Located" });
    expect(created.headers.get("location")).toBe(`${CALENDARS}/${created.body.id}`);
    expect((await call("GET", created.headers.get("location")!)).body).toEqual(created.body);
  });
});

describe("rename a calendar (PUT)", () => {
  test("when a new name is sent, then 200 with it, created_at kept, updated_at later and a new ETag; team_id is ignored", async () => {
    const { tenant, call } = await calendarTenant();
    const created = await call("POST", CALENDARS, { name: "Before" });
    const renamed = await call("PUT", `${CALENDARS}/${created.body.id}`, { name: "After", team_id: await tenant.team() });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: created.body.id, name: "After", team_id: null, created_at: created.body.created_at });
    expect(renamed.body.updated_at > created.body.updated_at).toBe(true);
    expect(renamed.headers.get("etag")).not.toBe(created.headers.get("etag"));
  });

  test.each([
    ["no name", {}],
    ["an empty name", { name: "" }],
    ["a blank name", { name: " \n" }],
    ["256 characters", { name: "x".repeat(256) }],
    ["a NUL", { name: "a\u0000b" }],
    ["a number", { name: 5 }],
  ])("when the body has %s, then 400 bad_request naming name", async (_, body) => {
    const { call, calendarId } = await calendarTenant();
    expectError(await call("PUT", `${CALENDARS}/${calendarId}`, body), 400, "bad_request", ["name"]);
  });

  test("when If-Match names a stale version, then 412 and the name stays; the current one renames", async () => {
    const { call } = await calendarTenant();
    const created = await call("POST", CALENDARS, { name: "v1" });
    const current = await call("PUT", `${CALENDARS}/${created.body.id}`, { name: "v2" });
    expectError(await call("PUT", `${CALENDARS}/${created.body.id}`, { name: "lost" }, { "if-match": created.headers.get("etag")! }), 412, "precondition_failed");
    expect((await call("GET", `${CALENDARS}/${created.body.id}`)).body.name).toBe("v2");
    expect((await call("PUT", `${CALENDARS}/${created.body.id}`, { name: "v3" }, { "if-match": current.headers.get("etag")! })).status).toBe(200);
  });
});

describe("delete a calendar", () => {
  test("when it is deleted, then its events are deleted with it", async () => {
    const { call, calendarId } = await calendarTenant();
    const other = (await call("POST", CALENDARS, { name: "Other" })).body.id;
    const doomed = (await call("POST", "/api/calendar/events", eventBody(calendarId))).body;
    const kept = (await call("POST", "/api/calendar/events", eventBody(other))).body;
    expect((await call("DELETE", `${CALENDARS}/${calendarId}`)).status).toBe(204);
    expectError(await call("GET", `${CALENDARS}/${calendarId}`), 404, "not_found");
    expectError(await call("GET", `/api/calendar/events/${doomed.id}`), 404, "not_found");
    const events = await call("GET", "/api/calendar/events");
    expect(events.body.data.map((event: { id: string }) => event.id)).toEqual([kept.id]);
    expectError(await call("DELETE", `${CALENDARS}/${calendarId}`), 404, "not_found");
  });

  test("when If-Match names a stale version, then 412 and the calendar stays", async () => {
    const { call } = await calendarTenant();
    const created = await call("POST", CALENDARS, { name: "Guarded" });
    await call("PUT", `${CALENDARS}/${created.body.id}`, { name: "Changed" });
    expectError(await call("DELETE", `${CALENDARS}/${created.body.id}`, undefined, { "if-match": created.headers.get("etag")! }), 412, "precondition_failed");
    expect((await call("GET", `${CALENDARS}/${created.body.id}`)).status).toBe(200);
  });
});

describe("calendar scopes", () => {
  test("when a key has calendar:read only, then it reads but updating or deleting is 403", async () => {
    const { tenant, baseUrl, calendarId } = await calendarTenant();
    const read = apiClient(baseUrl, await tenant.key({ scopes: ["calendar:read"] }));
    expect((await read("GET", `${CALENDARS}/${calendarId}`)).status).toBe(200);
    expectError(await read("PUT", `${CALENDARS}/${calendarId}`, { name: "x" }), 403, "insufficient_permissions");
    expectError(await read("DELETE", `${CALENDARS}/${calendarId}`), 403, "insufficient_permissions");
  });

  test("when a key has calendar:update only, then it renames but cannot read or delete; calendar:delete deletes", async () => {
    const { tenant, baseUrl, calendarId } = await calendarTenant();
    const update = apiClient(baseUrl, await tenant.key({ scopes: ["calendar:update"] }));
    expect((await update("PUT", `${CALENDARS}/${calendarId}`, { name: "Renamed" })).status).toBe(200);
    expectError(await update("GET", `${CALENDARS}/${calendarId}`), 403, "insufficient_permissions");
    expectError(await update("DELETE", `${CALENDARS}/${calendarId}`), 403, "insufficient_permissions");
    const remove = apiClient(baseUrl, await tenant.key({ scopes: ["calendar:delete"] }));
    expect((await remove("DELETE", `${CALENDARS}/${calendarId}`)).status).toBe(204);
  });

  test("when a key lacks the scope, then 403 comes before the lookup, even for a calendar that does not exist", async () => {
    const { tenant, baseUrl } = await calendarTenant();
    const read = apiClient(baseUrl, await tenant.key({ scopes: ["calendar:read"] }));
    expectError(await read("DELETE", `${CALENDARS}/${MISSING}`), 403, "insufficient_permissions");
  });

  test("when a guest's key holds calendar:update, then renaming is 403 forbidden: the role does not allow it", async () => {
    const { tenant, baseUrl, calendarId } = await calendarTenant();
    const guest = await tenant.member("guest");
    const call = apiClient(baseUrl, await tenant.key({ created_by: guest, scopes: ["calendar:read", "calendar:update"] }));
    expect((await call("GET", `${CALENDARS}/${calendarId}`)).status).toBe(200);
    expectError(await call("PUT", `${CALENDARS}/${calendarId}`, { name: "x" }), 403, "forbidden");
  });
});

describe("calendar team targeting", () => {
  async function teams() {
    const { tenant, call, calendarId: workspaceCalendar, baseUrl } = await calendarTenant();
    const teamA = await tenant.team("A");
    const teamB = await tenant.team("B");
    const calendarA = (await call("POST", CALENDARS, { name: "A", team_id: teamA })).body.id as string;
    const calendarB = (await call("POST", CALENDARS, { name: "B", team_id: teamB })).body.id as string;
    return { tenant, baseUrl, teamA, teamB, workspaceCalendar, calendarA, calendarB };
  }

  test("when a key targets team A, then A's calendar is read, renamed and deleted, and B's or the workspace's answer 403", async () => {
    const { tenant, baseUrl, teamA, workspaceCalendar, calendarA, calendarB } = await teams();
    const keyA = apiClient(baseUrl, await tenant.key({ team_ids: [teamA] }));
    expect((await keyA("GET", `${CALENDARS}/${calendarA}`)).status).toBe(200);
    expect((await keyA("PUT", `${CALENDARS}/${calendarA}`, { name: "A2" })).status).toBe(200);
    for (const id of [calendarB, workspaceCalendar]) {
      expectError(await keyA("GET", `${CALENDARS}/${id}`), 403, "insufficient_permissions");
      expectError(await keyA("PUT", `${CALENDARS}/${id}`, { name: "no" }), 403, "insufficient_permissions");
      expectError(await keyA("DELETE", `${CALENDARS}/${id}`), 403, "insufficient_permissions");
    }
    expect((await keyA("DELETE", `${CALENDARS}/${calendarA}`)).status).toBe(204);
  });

  test("when the key's creator is outside team B, then B's calendar is 404 on every operation", async () => {
    const { tenant, baseUrl, teamA, calendarB } = await teams();
    const member = await tenant.member("member", [teamA]);
    const call = apiClient(baseUrl, await tenant.key({ created_by: member }));
    expectError(await call("GET", `${CALENDARS}/${calendarB}`), 404, "not_found");
    expectError(await call("PUT", `${CALENDARS}/${calendarB}`, { name: "no" }), 404, "not_found");
    expectError(await call("DELETE", `${CALENDARS}/${calendarB}`), 404, "not_found");
  });

  test("when a calendar is named in another workspace, then 404", async () => {
    const { calendarId } = await calendarTenant();
    const { call } = await calendarTenant();
    expectError(await call("GET", `${CALENDARS}/${calendarId}`), 404, "not_found");
    expectError(await call("DELETE", `${CALENDARS}/${calendarId}`), 404, "not_found");
  });
});

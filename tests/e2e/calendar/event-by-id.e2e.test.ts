import { describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { apiClient } from "../../harness/http";
import { calendarTenant, eventBody } from "./helpers";

const EVENTS = "/api/calendar/events";
const MISSING = "0190a5e0-0000-7000-8000-000000000000";

describe("get an event", () => {
  test("when it is read by id, then 200 with the event as listed, its ETag, and Location on its creation", async () => {
    const { call, calendarId } = await calendarTenant();
    const created = await call("POST", EVENTS, eventBody(calendarId, { notes: "n", attendees: [{ email: "a@example.com" }] }));
    expect(created.headers.get("location")).toBe(`${EVENTS}/${created.body.id}`);
    const read = await call("GET", `${EVENTS}/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    expect(read.body).toEqual((await call("GET", EVENTS)).body.data[0]);
    expect(read.headers.get("etag")).toBe(created.headers.get("etag"));
    expectError(await call("GET", `${EVENTS}/${MISSING}`), 404, "not_found");
    expectError(await call("GET", `${EVENTS}/nope`), 404, "not_found");
  });
});

describe("update an event (PUT, fields given replace theirs)", () => {
  test("when some fields are sent, then only they change, null clears, attendees are replaced, and updated_at moves on", async () => {
    const { call, calendarId } = await calendarTenant();
    const created = (await call("POST", EVENTS, eventBody(calendarId, { location: "Room 1", notes: "bring cake", reminder_minutes_before_start: 5, attendees: [{ name: "A" }, { name: "B" }] }))).body;
    const updated = await call("PUT", `${EVENTS}/${created.id}`, {
      title: "Renamed",
      location: null,
      notes: null,
      reminder_minutes_before_start: null,
      attendees: [{ email: "c@example.com", status: "accepted" }],
    });
    expect(updated.status).toBe(200);
    const { notes: _notes, reminder_minutes_before_start: _reminder, ...kept } = created;
    expect(updated.body).toEqual({
      ...kept,
      title: "Renamed",
      location: null,
      attendees: [{ email: "c@example.com", status: "accepted" }],
      updated_at: updated.body.updated_at,
    });
    expect(updated.body.updated_at > created.updated_at).toBe(true);
    expect((await call("GET", `${EVENTS}/${created.id}`)).body).toEqual(updated.body);
  });

  test("when the times are changed, then ends_at before starts_at (after the update) is 422 naming ends_at and nothing changes", async () => {
    const { call, calendarId } = await calendarTenant();
    const created = (await call("POST", EVENTS, eventBody(calendarId))).body;
    expectError(await call("PUT", `${EVENTS}/${created.id}`, { starts_at: "2026-03-02T12:00:00Z" }), 422, "validation_error", ["ends_at"]);
    expect((await call("GET", `${EVENTS}/${created.id}`)).body).toEqual(created);
    const moved = await call("PUT", `${EVENTS}/${created.id}`, { starts_at: "2026-03-02T12:00:00+01:00", ends_at: "2026-03-02T13:00:00+01:00" });
    expect(moved.body).toMatchObject({ starts_at: "2026-03-02T11:00:00.000Z", ends_at: "2026-03-02T12:00:00.000Z" });
  });

  test("when the body has none of the event's fields, then 400 naming them all; a wrong type is 400 naming the field", async () => {
    const { call, calendarId } = await calendarTenant();
    const created = (await call("POST", EVENTS, eventBody(calendarId))).body;
    const empty = await call("PUT", `${EVENTS}/${created.id}`, { unknown: 1 });
    expectError(empty, 400, "bad_request");
    expect(empty.body.error.details.fields).toContain("title");
    expect(empty.body.error.details.fields).toContain("starts_at");
    expectError(await call("PUT", `${EVENTS}/${created.id}`, { is_all_day: "yes" }), 400, "bad_request", ["is_all_day"]);
    expectError(await call("PUT", `${EVENTS}/${created.id}`, { reminder_minutes_before_start: 10081 }), 400, "bad_request", ["reminder_minutes_before_start"]);
  });

  test("when calendar_id moves the event, then it lands in that calendar; an unknown calendar is 404", async () => {
    const { call, calendarId } = await calendarTenant();
    const other = (await call("POST", "/api/calendar/calendars", { name: "Other" })).body.id;
    const created = (await call("POST", EVENTS, eventBody(calendarId))).body;
    expect((await call("PUT", `${EVENTS}/${created.id}`, { calendar_id: other })).body.calendar_id).toBe(other);
    expect((await call("GET", `${EVENTS}?calendar_id=${other}`)).body.total).toBe(1);
    expectError(await call("PUT", `${EVENTS}/${created.id}`, { calendar_id: MISSING }), 404, "not_found");
  });

  test("when If-Match names a stale version, then 412 and nothing changes; the current one updates", async () => {
    const { call, calendarId } = await calendarTenant();
    const created = await call("POST", EVENTS, eventBody(calendarId));
    const current = await call("PUT", `${EVENTS}/${created.body.id}`, { title: "Mine" });
    expectError(await call("PUT", `${EVENTS}/${created.body.id}`, { title: "Theirs" }, { "if-match": created.headers.get("etag")! }), 412, "precondition_failed");
    expect((await call("GET", `${EVENTS}/${created.body.id}`)).body.title).toBe("Mine");
    expect((await call("PUT", `${EVENTS}/${created.body.id}`, { title: "Next" }, { "if-match": current.headers.get("etag")! })).status).toBe(200);
    const fresh = await call("GET", `${EVENTS}/${created.body.id}`, undefined, { "if-none-match": (await call("GET", `${EVENTS}/${created.body.id}`)).headers.get("etag")! });
    expect(fresh.status).toBe(304);
  });
});

describe("delete an event", () => {
  test("when it is deleted, then 204 and it is gone from reads and lists; a stale If-Match is 412 first", async () => {
    const { call, calendarId } = await calendarTenant();
    const created = await call("POST", EVENTS, eventBody(calendarId, { attendees: [{ name: "A" }] }));
    await call("PUT", `${EVENTS}/${created.body.id}`, { title: "Changed" });
    expectError(await call("DELETE", `${EVENTS}/${created.body.id}`, undefined, { "if-match": created.headers.get("etag")! }), 412, "precondition_failed");
    expect((await call("DELETE", `${EVENTS}/${created.body.id}`)).status).toBe(204);
    expectError(await call("GET", `${EVENTS}/${created.body.id}`), 404, "not_found");
    expect((await call("GET", EVENTS)).body.total).toBe(0);
    expectError(await call("DELETE", `${EVENTS}/${created.body.id}`), 404, "not_found");
  });
});

describe("event scopes", () => {
  test("when a key has calendar:read only, then it reads an event, and updating or deleting is 403", async () => {
    const { tenant, baseUrl, call, calendarId } = await calendarTenant();
    const event = (await call("POST", EVENTS, eventBody(calendarId))).body;
    const read = apiClient(baseUrl, await tenant.key({ scopes: ["calendar:read"] }));
    expect((await read("GET", `${EVENTS}/${event.id}`)).status).toBe(200);
    expectError(await read("PUT", `${EVENTS}/${event.id}`, { title: "x" }), 403, "insufficient_permissions");
    expectError(await read("DELETE", `${EVENTS}/${event.id}`), 403, "insufficient_permissions");
  });

  test("when a key has the write level (read, create, update), then it updates but deleting is 403; full access deletes", async () => {
    const { tenant, baseUrl, call, calendarId } = await calendarTenant();
    const event = (await call("POST", EVENTS, eventBody(calendarId))).body;
    const write = apiClient(baseUrl, await tenant.key({ permissions: { calendar: "write" } }));
    expect((await write("PUT", `${EVENTS}/${event.id}`, { title: "Written" })).status).toBe(200);
    expectError(await write("DELETE", `${EVENTS}/${event.id}`), 403, "insufficient_permissions");
    const full = apiClient(baseUrl, await tenant.key({ permissions: { calendar: "full" } }));
    expect((await full("DELETE", `${EVENTS}/${event.id}`)).status).toBe(204);
  });

  test("when a docs-only key touches an event, then 403 on every operation, even for an event that does not exist", async () => {
    const { tenant, baseUrl } = await calendarTenant();
    const docs = apiClient(baseUrl, await tenant.key({ permissions: { docs: "full" } }));
    expectError(await docs("GET", `${EVENTS}/${MISSING}`), 403, "insufficient_permissions");
    expectError(await docs("PUT", `${EVENTS}/${MISSING}`, { title: "x" }), 403, "insufficient_permissions");
    expectError(await docs("DELETE", `${EVENTS}/${MISSING}`), 403, "insufficient_permissions");
  });
});

describe("event team targeting", () => {
  async function teams() {
    const { tenant, call, calendarId: workspaceCalendar, baseUrl } = await calendarTenant();
    const teamA = await tenant.team("A");
    const teamB = await tenant.team("B");
    const calendarA = (await call("POST", "/api/calendar/calendars", { name: "A", team_id: teamA })).body.id as string;
    const calendarB = (await call("POST", "/api/calendar/calendars", { name: "B", team_id: teamB })).body.id as string;
    const eventIn = async (calendar: string) => (await call("POST", EVENTS, eventBody(calendar))).body.id as string;
    return { tenant, baseUrl, teamA, workspaceCalendar, calendarA, calendarB, eventA: await eventIn(calendarA), eventB: await eventIn(calendarB), eventWorkspace: await eventIn(workspaceCalendar) };
  }

  test("when a key targets team A, then A's event is read, updated and deleted; B's and the workspace's answer 403", async () => {
    const { tenant, baseUrl, teamA, eventA, eventB, eventWorkspace } = await teams();
    const keyA = apiClient(baseUrl, await tenant.key({ team_ids: [teamA] }));
    expect((await keyA("GET", `${EVENTS}/${eventA}`)).status).toBe(200);
    expect((await keyA("PUT", `${EVENTS}/${eventA}`, { title: "A" })).status).toBe(200);
    for (const id of [eventB, eventWorkspace]) {
      expectError(await keyA("GET", `${EVENTS}/${id}`), 403, "insufficient_permissions");
      expectError(await keyA("PUT", `${EVENTS}/${id}`, { title: "no" }), 403, "insufficient_permissions");
      expectError(await keyA("DELETE", `${EVENTS}/${id}`), 403, "insufficient_permissions");
    }
    expect((await keyA("DELETE", `${EVENTS}/${eventA}`)).status).toBe(204);
  });

  test("when a key targeting team A moves A's event into B's calendar, then 403 and the event stays", async () => {
    const { tenant, baseUrl, teamA, calendarA, calendarB, eventA } = await teams();
    const keyA = apiClient(baseUrl, await tenant.key({ team_ids: [teamA] }));
    expectError(await keyA("PUT", `${EVENTS}/${eventA}`, { calendar_id: calendarB }), 403, "insufficient_permissions");
    expect((await keyA("GET", `${EVENTS}/${eventA}`)).body.calendar_id).toBe(calendarA);
  });

  test("when the key's creator is outside team B, then B's event is 404, and moving an event into B's calendar is 404", async () => {
    const { tenant, baseUrl, teamA, calendarB, eventA, eventB } = await teams();
    const member = await tenant.member("member", [teamA]);
    const call = apiClient(baseUrl, await tenant.key({ created_by: member }));
    expectError(await call("GET", `${EVENTS}/${eventB}`), 404, "not_found");
    expectError(await call("PUT", `${EVENTS}/${eventB}`, { title: "no" }), 404, "not_found");
    expectError(await call("DELETE", `${EVENTS}/${eventB}`), 404, "not_found");
    expectError(await call("PUT", `${EVENTS}/${eventA}`, { calendar_id: calendarB }), 404, "not_found");
  });
});

describe("leap seconds", () => {
  test("when an event starts or ends on a leap second, then it is accepted and answered rolled forward to the next minute", async () => {
    const { call, calendarId } = await calendarTenant();
    const created = await call("POST", EVENTS, eventBody(calendarId, { starts_at: "2016-12-31T23:59:60Z", ends_at: "2017-01-01T00:59:60+01:00" }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ starts_at: "2017-01-01T00:00:00.000Z", ends_at: "2017-01-01T00:00:00.000Z" });
    const updated = await call("PUT", `${EVENTS}/${created.body.id}`, { ends_at: "2017-01-01T23:59:60.250Z" });
    expect(updated.body.ends_at).toBe("2017-01-02T00:00:00.250Z");
    expect((await call("GET", `${EVENTS}?starts_after=2016-12-31T23:59:60Z`)).body.total).toBe(1);
  });

  test("when second 60 is not the end of a UTC day, then 400 names the field", async () => {
    const { call, calendarId } = await calendarTenant();
    expectError(await call("POST", EVENTS, eventBody(calendarId, { starts_at: "2016-12-31T12:00:60Z" })), 400, "bad_request", ["starts_at"]);
  });
});

import { beforeAll, describe, expect, test } from "bun:test";
import { expectError, expectErrorNaming } from "../../harness/assertions";
import { calendarTenant, eventBody, type Call } from "./helpers";

let call: Call;
let calendarId: string;

beforeAll(async () => {
  ({ call, calendarId } = await calendarTenant());
});

async function create(overrides: Record<string, unknown>) {
  return call("POST", "/api/calendar/events/", eventBody(calendarId, overrides));
}

function expectBadRequest(response: { status: number; body: any }, field: string) {
  expectErrorNaming(response, 400, "bad_request", [field]);
}

describe("POST /api/calendar/events/: a valid body", () => {
  test("when only the required fields are sent, then 201 with every 2.1 field and the defaults", async () => {
    const response = await call("POST", "/api/calendar/events/", {
      calendar_id: calendarId,
      starts_at: "2026-03-02T10:00:00Z",
      ends_at: "2026-03-02T11:00:00Z",
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      calendar_id: calendarId,
      title: null,
      starts_at: "2026-03-02T10:00:00.000Z",
      ends_at: "2026-03-02T11:00:00.000Z",
      is_all_day: false,
      location: null,
      conference_url: null,
      attendees: [],
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
    });
  });

  test("when every field is sent, then 201 echoes each of them, notes and the reminder included", async () => {
    const fields = {
      title: "Planning",
      is_all_day: true,
      location: "Room 4",
      conference_url: "https://meet.example.com/abc?x=1",
      notes: "internal",
      reminder_minutes_before_start: 30,
      attendees: [{ email: "ada@example.com", name: "Ada", status: "accepted" }],
    };
    const response = await create(fields);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject(fields);
  });

  test("when the title is empty, then 201 with the empty title", async () => {
    const response = await create({ title: "" });
    expect(response.status).toBe(201);
    expect(response.body.title).toBe("");
  });

  test("when the date-times carry offsets, then they are answered in UTC with Z", async () => {
    const response = await create({ starts_at: "2026-03-02T10:00:00+02:00", ends_at: "2026-03-02T10:30:00.5-05:30" });
    expect(response.status).toBe(201);
    expect(response.body.starts_at).toBe("2026-03-02T08:00:00.000Z");
    expect(response.body.ends_at).toBe("2026-03-02T16:00:00.500Z");
  });

  test("when ends_at equals starts_at, then 201", async () => {
    expect((await create({ starts_at: "2026-03-02T10:00:00Z", ends_at: "2026-03-02T12:00:00+02:00" })).status).toBe(201);
  });

  test("when unknown fields are sent, then they are ignored", async () => {
    const response = await create({ colour: "red", id: "not-mine" });
    expect(response.status).toBe(201);
    expect(response.body.colour).toBeUndefined();
    expect(response.body.id).not.toBe("not-mine");
  });

  test("when the calendar_id is in upper case, then the event belongs to the same calendar", async () => {
    const response = await create({ calendar_id: calendarId.toUpperCase() });
    expect(response.status).toBe(201);
    expect(response.body.calendar_id).toBe(calendarId);
  });
});

describe("POST /api/calendar/events/: reminder_minutes_before_start bounds", () => {
  test.each([0, 1, 10079, 10080])("when it is %p, then 201", async (value) => {
    const response = await create({ reminder_minutes_before_start: value });
    expect(response.status).toBe(201);
    expect(response.body.reminder_minutes_before_start).toBe(value);
  });

  test.each([-1, 10081, 1.5, "5", null, true, 1e20])("when it is %p, then 400 naming it", async (value) => {
    expectBadRequest(await create({ reminder_minutes_before_start: value }), "reminder_minutes_before_start");
  });
});

describe("POST /api/calendar/events/: attendees", () => {
  const attendee = (i: number) => ({ email: `person${i}@example.com`, name: `Person ${i}` });

  test("when 500 attendees are sent, then 201 and they come back in order with status needs_action", async () => {
    const attendees = Array.from({ length: 500 }, (_, i) => attendee(i));
    const response = await create({ attendees });
    expect(response.status).toBe(201);
    expect(response.body.attendees).toEqual(attendees.map((a) => ({ ...a, status: "needs_action" })));
  });

  test("when 501 attendees are sent, then 400 naming attendees", async () => {
    expectBadRequest(await create({ attendees: Array.from({ length: 501 }, (_, i) => attendee(i)) }), "attendees");
  });

  test("when an attendee has no field at all, then 201 with status needs_action", async () => {
    const response = await create({ attendees: [{}] });
    expect(response.status).toBe(201);
    expect(response.body.attendees).toEqual([{ status: "needs_action" }]);
  });

  test.each(["needs_action", "accepted", "declined", "tentative"])("when the status is %p, then it is kept", async (status) => {
    const response = await create({ attendees: [{ status }] });
    expect(response.status).toBe(201);
    expect(response.body.attendees).toEqual([{ status }]);
  });

  test.each([
    ["an unknown status", { status: "maybe" }],
    ["a status in capitals", { status: "ACCEPTED" }],
    ["an invalid email", { email: "not-an-email" }],
    ["an email that is a number", { email: 42 }],
    ["a name that is not a string", { name: ["Ada"] }],
  ])("when an attendee has %s, then 400 naming attendees", async (_, value) => {
    expectBadRequest(await create({ attendees: [value] }), "attendees");
  });

  test.each([["an object", {}], ["a string", "ada@example.com"], ["an array of strings", ["ada@example.com"]]])(
    "when attendees is %s, then 400",
    async (_, value) => {
      expectBadRequest(await create({ attendees: value }), "attendees");
    },
  );
});

describe("POST /api/calendar/events/: required fields, types and formats", () => {
  test.each(["calendar_id", "starts_at", "ends_at"])("when %s is missing, then 400 naming it", async (field) => {
    const body = eventBody(calendarId);
    delete body[field];
    expectBadRequest(await call("POST", "/api/calendar/events/", body), field);
  });

  test.each([
    ["calendar_id", "not-a-uuid"],
    ["calendar_id", `urn:uuid:${"0".repeat(8)}-0000-0000-0000-${"0".repeat(12)}`],
    ["calendar_id", 123],
    ["starts_at", "2026-03-02"],
    ["starts_at", "2026-03-02T10:00:00"],
    ["starts_at", "2026-02-30T10:00:00Z"],
    ["starts_at", "2026-03-02T25:00:00Z"],
    ["starts_at", "next tuesday"],
    ["starts_at", 1767225600000],
    ["ends_at", "Mon Mar 02 2026 10:00:00 GMT+0000 (UTC)"],
    ["ends_at", null],
    ["title", 42],
    ["title", null],
    ["is_all_day", "true"],
    ["is_all_day", 1],
    ["location", { room: 4 }],
    ["conference_url", "not a url"],
    ["conference_url", "meet.example.com/abc"],
    ["notes", false],
    ["title", "nul \u0000 inside"],
  ])("when %s is %p, then 400 naming it", async (field, value) => {
    expectBadRequest(await create({ [field]: value }), field);
  });

  test("when the UTC instant falls outside years 0001 to 9999, then 400 naming the field", async () => {
    expectBadRequest(await create({ starts_at: "0001-01-01T00:30:00+01:00" }), "starts_at");
    expectBadRequest(await create({ ends_at: "9999-12-31T23:30:00-01:00" }), "ends_at");
  });

  test("when several fields are wrong, then 400 names each of them", async () => {
    const response = await create({ calendar_id: "x", reminder_minutes_before_start: -1 });
    expectBadRequest(response, "calendar_id");
    expect(response.body.error.details.fields).toContain("reminder_minutes_before_start");
  });
});

describe("POST /api/calendar/events/: malformed requests", () => {
  test.each([["not JSON", "{not json"], ["an array", "[]"], ["a string", '"x"'], ["null", "null"]])("when the body is %s, then 400 bad_request", async (_, text) => {
    expectError(await call("POST", "/api/calendar/events/", text), 400, "bad_request");
  });

  test("when the content type is not JSON, then 400 bad_request", async () => {
    const response = await call("POST", "/api/calendar/events/", JSON.stringify(eventBody(calendarId)), { "content-type": "text/plain" });
    expectError(response, 400, "bad_request");
  });
});

describe("POST /api/calendar/events/: semantic rules", () => {
  test("when ends_at is before starts_at, then 422 validation_error naming ends_at", async () => {
    const response = await create({ starts_at: "2026-03-02T10:00:00Z", ends_at: "2026-03-02T09:59:59.999Z" });
    expectError(response, 422, "validation_error", ["ends_at"]);
  });

  test("when ends_at is before starts_at only once offsets are applied, then 422", async () => {
    const response = await create({ starts_at: "2026-03-02T10:00:00Z", ends_at: "2026-03-02T11:00:00+02:00" });
    expect(response.status).toBe(422);
  });

  test("when the calendar does not exist, then 404 not_found", async () => {
    expectError(await create({ calendar_id: "01936f3e-8a4b-7c2d-9e1f-0a1b2c3d4e5f" }), 404, "not_found");
  });
});

describe("trailing slashes", () => {
  test.each([
    ["POST", "/api/calendar/events"],
    ["POST", "/api/calendar/events/"],
    ["GET", "/api/calendar/events"],
    ["GET", "/api/calendar/events/"],
    ["POST", "/api/calendar/calendars"],
    ["POST", "/api/calendar/calendars/"],
    ["GET", "/api/calendar/calendars"],
    ["GET", "/api/calendar/calendars/"],
  ])("when %s %s is called, then it answers without a redirect", async (method, path) => {
    const body = method === "GET" ? undefined : path.includes("events") ? eventBody(calendarId) : { name: "Slash" };
    const response = await call(method, path, body);
    expect(response.status).toBe(method === "GET" ? 200 : 201);
  });
});

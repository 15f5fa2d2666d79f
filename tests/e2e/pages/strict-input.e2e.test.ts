import { describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { PAGES, createPage, pagesTenant } from "./pages-client";

describe("page and per_page are integers in decimal digits", () => {
  test.each([
    ["0x10"], ["1e1"], ["+1"], [" 1"], ["1.0"], ["-1"], ["0"], [""], ["1_0"], ["١"], ["-99999999999999999999"],
  ])("when page is %p, then 422 names page", async (value) => {
    const { call } = await pagesTenant();
    expectError(await call("GET", `${PAGES}?page=${encodeURIComponent(value)}`), 422, "validation_error", ["page"]);
    expectError(await call("GET", `${PAGES}?per_page=${encodeURIComponent(value)}`), 422, "validation_error", ["per_page"]);
  });

  test("when page is past the largest safe integer, then 422 names page (it could not be reported back as asked), and a per_page past it is clamped to 100", async () => {
    const { call } = await pagesTenant();
    await createPage(call, { title: "one" });
    for (const huge of ["9007199254740992", "9007199254740993", "99999999999999999999", "9".repeat(400)]) {
      expectError(await call("GET", `${PAGES}?page=${huge}&per_page=5`), 422, "validation_error", ["page"]);
      expect((await call("GET", `${PAGES}?per_page=${huge}`)).body).toMatchObject({ page: 1, per_page: 100, total: 1 });
    }
    // A value under the range says the same range.
    expect((await call("GET", `${PAGES}?page=0`)).body.error.details.errors[0]).toEqual({ field: "page", rule: "range", message: "page must be an integer from 1 to 9007199254740991 (got 0)", allowed: { min: 1, max: 9007199254740991 } });
  });

  test("when both are decimal digits, then they are read as such, leading zeros and the largest safe integer included", async () => {
    const { call } = await pagesTenant();
    await createPage(call, { title: "one" });
    expect((await call("GET", `${PAGES}?page=001&per_page=0100`)).body).toMatchObject({ page: 1, per_page: 100, total: 1 });
    const far = await call("GET", `${PAGES}?page=9007199254740991`);
    expect(far.body).toMatchObject({ data: [], page: 9007199254740991, total: 1 });
  });

  test("when the calendar lists get such a value, then 400 names the parameter", async () => {
    const { call } = await pagesTenant();
    for (const path of ["/api/calendar/events", "/api/calendar/calendars"]) {
      expectError(await call("GET", `${path}?per_page=1e1`), 400, "bad_request", ["per_page"]);
      expectError(await call("GET", `${path}?page=0x10`), 400, "bad_request", ["page"]);
      expectError(await call("GET", `${path}?page=99999999999999999999`), 400, "bad_request", ["page"]);
      expect((await call("GET", `${path}?page=9007199254740991&per_page=99999999999999999999`)).body).toMatchObject({ data: [], page: 9007199254740991, per_page: 100 });
    }
  });
});

describe("a body field named __proto__", () => {
  test("when a page is created or updated with __proto__, then it is ignored like any unknown field", async () => {
    const { call } = await pagesTenant();
    const created = await call("POST", PAGES, '{"title":"Proto","__proto__":{"title":"hijack","admin":true}}');
    expect(created.status).toBe(201);
    expect(created.body.title).toBe("Proto");
    expect(created.body).not.toHaveProperty("admin");
    const updated = await call("PUT", `${PAGES}/${created.body.id}`, '{"content":"x","__proto__":{"content":"y"}}');
    expect(updated.body.content).toBe("x");
    // Only __proto__ is not "a body with neither title nor content" turned valid.
    expectError(await call("PUT", `${PAGES}/${created.body.id}`, '{"__proto__":{"title":"t"}}'), 422, "validation_error", ["title", "content"]);
  });

  test("when a calendar or an event is created with __proto__, also in an attendee, then it is ignored", async () => {
    const { call } = await pagesTenant();
    const calendar = await call("POST", "/api/calendar/calendars", '{"name":"Proto","__proto__":{"team_id":"x"}}');
    expect(calendar.status).toBe(201);
    const event = await call(
      "POST",
      "/api/calendar/events",
      JSON.stringify({ calendar_id: calendar.body.id, starts_at: "2026-03-02T10:00:00Z", ends_at: "2026-03-02T11:00:00Z" }).replace(
        "}",
        ',"__proto__":{"x":1},"attendees":[{"name":"Ada","__proto__":{"status":"declined"}}]}',
      ),
    );
    expect(event.status).toBe(201);
    expect(event.body.attendees).toEqual([{ name: "Ada", status: "needs_action" }]);
  });
});

describe("fields named after Object.prototype's properties", () => {
  const NAMES = ["constructor", "toString", "hasOwnProperty", "valueOf"];

  test.each(NAMES)("when a page body or list query has %s, then it is ignored like any unknown field, not 422 unknown_field", async (name) => {
    const { call } = await pagesTenant();
    const created = await call("POST", PAGES, { title: "a", content: "x", [name]: 1 });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).not.toContain(name);
    expect((await call("PUT", `${PAGES}/${created.body.id}`, { content: "y", [name]: 1 })).body.content).toBe("y");
    expect((await call("GET", `${PAGES}?${name}=1`)).body.total).toBe(1);
    // Alone it is no field at all: the body still lacks what an update needs.
    expectError(await call("PUT", `${PAGES}/${created.body.id}`, { [name]: 1 }), 422, "validation_error", ["title", "content"]);
  });

  test.each(NAMES)("when a calendar or event body or a calendar list query has %s, then it is ignored, not 400 unknown_field", async (name) => {
    const { call } = await pagesTenant();
    const calendar = await call("POST", "/api/calendar/calendars", { name: "Inherited", [name]: 1 });
    expect(calendar.status).toBe(201);
    const event = await call("POST", "/api/calendar/events", {
      calendar_id: calendar.body.id,
      starts_at: "2026-03-02T10:00:00Z",
      ends_at: "2026-03-02T11:00:00Z",
      attendees: [{ name: "Ada", [name]: 1 }],
      [name]: 1,
    });
    expect(event.status).toBe(201);
    expect(event.body.attendees).toEqual([{ name: "Ada", status: "needs_action" }]);
    expect((await call("PUT", `/api/calendar/events/${event.body.id}`, { title: "t", [name]: 1 })).body.title).toBe("t");
    for (const path of ["/api/calendar/events", "/api/calendar/calendars"]) {
      expect((await call("GET", `${path}?${name}=1`)).body.total).toBe(1);
    }
  });
});

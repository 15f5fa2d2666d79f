import { beforeAll, describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { calendarTenant, eventBody, type Call } from "./helpers";

let call: Call;
let calendarId: string;
let otherCalendarId: string;
/** Created out of order, several at the same start so the id breaks ties. */
const created: { id: string; starts_at: string; calendar_id: string }[] = [];
const STARTS = ["2026-05-03T09:00:00Z", "2026-05-01T09:00:00Z", "2026-05-02T09:00:00Z", "2026-05-01T09:00:00Z", "2026-05-04T00:00:00+02:00"];

beforeAll(async () => {
  ({ call, calendarId } = await calendarTenant());
  otherCalendarId = (await call("POST", "/api/calendar/calendars/", { name: "Other" })).body.id;
  for (let round = 0; round < 5; round++) {
    for (const [i, starts_at] of STARTS.entries()) {
      const target = i === 2 ? otherCalendarId : calendarId;
      const response = await call("POST", "/api/calendar/events/", eventBody(target, { starts_at, ends_at: "2026-06-01T00:00:00Z", title: `r${round} e${i}` }));
      expect(response.status).toBe(201);
      created.push(response.body);
    }
  }
});

function expectedOrder(events: typeof created) {
  return [...events].sort((a, b) => (a.starts_at < b.starts_at ? -1 : a.starts_at > b.starts_at ? 1 : a.id < b.id ? -1 : 1)).map((e) => e.id);
}

async function allPages(query: string, perPage: number) {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const response = await call("GET", `/api/calendar/events/?per_page=${perPage}&page=${page}${query}`);
    expect(response.status).toBe(200);
    expect(response.body.page).toBe(page);
    expect(response.body.per_page).toBe(perPage);
    if (response.body.data.length === 0) return { ids, total: response.body.total };
    ids.push(...response.body.data.map((e: { id: string }) => e.id));
  }
}

describe("GET /api/calendar/events/", () => {
  test("when no parameter is given, then the envelope has page 1, per_page 20 and the total", async () => {
    const response = await call("GET", "/api/calendar/events");
    expect(response.status).toBe(200);
    expect(response.body.page).toBe(1);
    expect(response.body.per_page).toBe(20);
    expect(response.body.total).toBe(25);
    expect(response.body.data).toHaveLength(20);
  });

  test("when paging through with per_page 7, then every event comes once, ordered by starts_at then id", async () => {
    const { ids, total } = await allPages("", 7);
    expect(total).toBe(25);
    expect(ids).toEqual(expectedOrder(created));
  });

  test("when an item is listed, then it is exactly what create answered", async () => {
    const { ids } = await allPages("", 100);
    const response = await call("GET", "/api/calendar/events/?per_page=100");
    for (const event of created) expect(response.body.data).toContainEqual(event);
    expect(ids).toHaveLength(created.length);
  });

  test("when calendar_id is given, then only that calendar's events are listed", async () => {
    const { ids, total } = await allPages(`&calendar_id=${otherCalendarId}`, 2);
    expect(total).toBe(5);
    expect(ids).toEqual(expectedOrder(created.filter((e) => e.calendar_id === otherCalendarId)));
  });

  test("when starts_after is given, then it is inclusive; starts_before is exclusive", async () => {
    const from = "2026-05-02T09:00:00Z";
    const before = "2026-05-03T09:00:00Z";
    const { ids, total } = await allPages(`&starts_after=${from}&starts_before=${before}`, 3);
    expect(total).toBe(5);
    expect(ids).toEqual(expectedOrder(created.filter((e) => e.starts_at >= "2026-05-02T09:00:00.000Z" && e.starts_at < "2026-05-03T09:00:00.000Z")));
  });

  test("when the filters carry offsets, then they are compared as instants", async () => {
    const response = await call("GET", `/api/calendar/events/?starts_after=${encodeURIComponent("2026-05-04T00:00:00+02:00")}`);
    expect(response.body.total).toBe(5);
    expect(response.body.data.every((e: { starts_at: string }) => e.starts_at === "2026-05-03T22:00:00.000Z")).toBe(true);
  });

  test("when the filters are combined, then all apply", async () => {
    const response = await call("GET", `/api/calendar/events/?calendar_id=${calendarId}&starts_before=2026-05-02T00:00:00Z`);
    expect(response.body.total).toBe(10);
  });

  test("when per_page is above 100, then 100 is used and reported", async () => {
    const response = await call("GET", "/api/calendar/events/?per_page=101");
    expect(response.status).toBe(200);
    expect(response.body.per_page).toBe(100);
  });

  test("when the page is beyond the results, then 200 with no data and the total", async () => {
    for (const page of [3, 999999999999]) {
      const response = await call("GET", `/api/calendar/events/?page=${page}`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ data: [], total: 25, page, per_page: 20 });
    }
  });

  test("when calendar_id names an unknown calendar, then 200 with nothing", async () => {
    const response = await call("GET", "/api/calendar/events/?calendar_id=01936f3e-8a4b-7c2d-9e1f-0a1b2c3d4e5f");
    expect(response.status).toBe(200);
    expect(response.body.total).toBe(0);
  });

  test.each([
    ["page", "0"],
    ["page", "-1"],
    ["page", "1.5"],
    ["page", "abc"],
    ["per_page", "0"],
    ["per_page", "x"],
    ["calendar_id", "nope"],
    ["starts_after", "yesterday"],
    ["starts_after", "2026-05-01"],
    ["starts_before", "2026-02-30T00:00:00Z"],
  ])("when %s is %p, then 400 bad_request naming it", async (name, value) => {
    const response = await call("GET", `/api/calendar/events/?${name}=${value}`);
    expectError(response, 400, "bad_request", [name]);
  });
});

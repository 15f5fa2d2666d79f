import { describe, expect, test } from "bun:test";
import {
  calendarListProblems,
  errorBodyProblems,
  eventListProblems,
  eventProblems,
  pageListProblems,
  pageProblems,
  parseJson,
} from "./shapes.js";

const page = {
  id: "01920c3e-7b4a-7cc1-9f3e-1a2b3c4d5e6f",
  title: "Quarterly plan",
  content: "",
  created_at: "2030-01-01T10:00:00.000Z",
  updated_at: "2030-01-01T10:00:00.000Z",
  team_id: null,
};

const event = {
  id: "01920c3e-7b4a-7cc1-9f3e-1a2b3c4d5e70",
  calendar_id: "01920c3e-7b4a-7cc1-9f3e-1a2b3c4d5e71",
  title: "Standup",
  starts_at: "2030-01-01T10:00:00Z",
  ends_at: "2030-01-01T10:15:00Z",
  is_all_day: false,
  location: null,
  conference_url: "https://meet.example.com/standup",
  attendees: [{ email: "ana@example.com", name: "Ana", status: "needs_action" }],
};

describe("page shapes", () => {
  test("when a page has every field, then it has no problem", () => {
    expect(pageProblems(page)).toEqual([]);
  });

  test("when a page's id is not a UUID or its timestamp lacks the Z, then each is named", () => {
    expect(pageProblems({ ...page, id: "42", updated_at: "2030-01-01T10:00:00+01:00" })).toEqual([
      "page id is not a UUID",
      "page updated_at is not an ISO 8601 UTC timestamp",
    ]);
  });

  test("when updated_at is before created_at, then the page is rejected", () => {
    expect(pageProblems({ ...page, updated_at: "2029-12-31T23:59:59Z" })).toEqual(["page updated_at is before created_at"]);
  });

  test("when a list envelope holds valid pages, then it has no problem", () => {
    expect(pageListProblems({ data: [page, page], total: 2, page: 1, per_page: 20 })).toEqual([]);
  });

  test("when a list holds more items than per_page or per_page passes 100, then it is rejected", () => {
    expect(pageListProblems({ data: [page, page], total: 2, page: 1, per_page: 1 })).toEqual(["list data holds more items than per_page"]);
    expect(pageListProblems({ data: [], total: 0, page: 1, per_page: 101 })).toEqual(["list per_page is not an integer from 1 to 100"]);
  });

  test("when a list item is not a page, then the item is named", () => {
    expect(pageListProblems({ data: [page, { ...page, content: null }], total: 2, page: 1, per_page: 20 })).toEqual([
      "list item 1: page content is not a string",
    ]);
  });
});

describe("calendar shapes", () => {
  test("when an event carries every field, then it has no problem", () => {
    expect(eventProblems(event)).toEqual([]);
    expect(eventListProblems({ data: [event], total: 1, page: 1, per_page: 20 })).toEqual([]);
  });

  test("when an event leaves a field out or an attendee has an unknown status, then it is rejected", () => {
    const { location: _location, ...withoutLocation } = event;
    expect(eventProblems(withoutLocation)).toEqual(["event location is missing or not a string"]);
    expect(eventProblems({ ...event, attendees: [{ status: "maybe" }] })).toEqual([
      "attendee status is not one of needs_action, accepted, declined, tentative",
    ]);
  });

  test("when a calendar list holds calendars, then it has no problem", () => {
    expect(calendarListProblems({ data: [{ id: event.calendar_id, name: "Team" }], total: 1, page: 1, per_page: 20 })).toEqual([]);
  });
});

describe("error bodies", () => {
  test("when a body is the error object with the expected code, then it has no problem", () => {
    expect(errorBodyProblems({ error: { code: "not_found", message: "No such page.", details: { request_id: "r1" } } }, "not_found")).toEqual([]);
  });

  test("when a body is plain text or carries another code, then it is rejected", () => {
    expect(errorBodyProblems(parseJson("Not Found"))).toEqual(["the body is not an error object"]);
    expect(errorBodyProblems({ error: { code: "forbidden", message: "No." } }, "insufficient_permissions")).toEqual([
      "error.code is forbidden, expected insufficient_permissions",
    ]);
  });
});

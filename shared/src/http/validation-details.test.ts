import { describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { CreateEventBody, EventListQuery } from "../schemas/calendar";
import { CreatePageBody, PageListQuery } from "../schemas/pages";
import { createLogger } from "../observability/logger";
import { errorHandler } from "./error-handler";
import { jsonBodies } from "./json-body";

const logger = createLogger("test", "silent");
const pages = new Elysia({ normalize: "typebox" })
  .use(errorHandler({ validationCode: "validation_error", logger }))
  .use(jsonBodies())
  .post("/pages", () => "ok", { body: CreatePageBody })
  .get("/pages", () => "ok", { query: PageListQuery })
  .post("/keys", () => "ok", {
    body: t.Object({
      name: t.String({ minLength: 1, maxLength: 100, pattern: "\\S" }),
      team_ids: t.Optional(t.Union([t.Array(t.String({ format: "uuid" })), t.Null()])),
      role: t.Optional(t.Union([t.Literal("owner"), t.Literal("guest")])),
      rate_limit_per_minute: t.Optional(t.Integer({ minimum: 1, maximum: 1000 })),
      permissions: t.Optional(t.Object({ docs: t.Optional(t.UnionEnum(["read", "full"])) }, { additionalProperties: false })),
    }),
  });
const calendar = new Elysia({ normalize: "typebox", seed: "calendar" })
  .use(errorHandler({ validationCode: "bad_request", logger }))
  .use(jsonBodies())
  .post("/events", () => "ok", { body: CreateEventBody })
  .get("/events", () => "ok", { query: EventListQuery });

async function send(app: { handle(request: Request): Promise<Response> }, method: string, path: string, body?: unknown, contentType = "application/json") {
  const response = await app.handle(
    new Request(`http://localhost${path}`, {
      method,
      headers: contentType ? { "content-type": contentType } : {},
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
  return { status: response.status, error: ((await response.json()) as { error: { code: string; message: string; details: any } }).error };
}

const validEvent = { calendar_id: "01936f3e-8a4b-7c2d-9e1f-0a1b2c3d4e5f", starts_at: "2026-03-02T10:00:00Z", ends_at: "2026-03-02T11:00:00Z" };

describe("validation errors say per field which rule failed and what is allowed", () => {
  test.each([
    ["missing", {}, "required", "title is required"],
    ["a number", { title: 5 }, "type", "title must be a string"],
    ["256 characters", { title: "x".repeat(256) }, "length", "title must be 1 to 255 characters (got 256)"],
    ["256 emoji", { title: "😀".repeat(256) }, "length", "title must be 1 to 255 characters (got 256)"],
    ["empty", { title: "" }, "length", "title must be 1 to 255 characters (got 0)"],
    ["only whitespace", { title: " \t " }, "blank", "title must not be blank (only whitespace)"],
  ])("when a page's title is %s, then the error says the rule", async (_label, body, rule, message) => {
    const { status, error } = await send(pages, "POST", "/pages", body);
    expect(status).toBe(422);
    expect(error.code).toBe("validation_error");
    expect(error.details.fields).toEqual(["title"]);
    expect(error.details.errors).toHaveLength(1);
    expect(error.details.errors[0]).toMatchObject({ field: "title", rule });
    expect(error.details.errors[0].message).toStartWith(message);
    expect(error.message).toStartWith(message);
  });

  test("when 255 emoji are sent as the title, then it passes", async () => {
    const response = await pages.handle(
      new Request("http://localhost/pages", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "😀".repeat(255) }) }),
    );
    expect(response.status).toBe(200);
  });

  test("when sort is not one of its values, then the error lists the allowed values", async () => {
    const { status, error } = await send(pages, "GET", "/pages?sort=bogus");
    expect(status).toBe(422);
    expect(error.details.fields).toEqual(["sort"]);
    expect(error.details.errors).toEqual([
      { field: "sort", rule: "one_of", message: "sort must be one of updated_at, created_at, title", allowed: ["updated_at", "created_at", "title"] },
    ]);
    expect(error.message).toBe("sort must be one of updated_at, created_at, title.");
  });

  test("when per_page is not a number and order is unknown, then both are explained in order", async () => {
    const { error } = await send(pages, "GET", "/pages?per_page=x&order=up");
    expect(error.details.fields).toEqual(["per_page", "order"]);
    expect(error.details.errors.map((entry: { rule: string }) => entry.rule)).toEqual(["type", "one_of"]);
    expect(error.details.errors[0].message).toStartWith("per_page must be an integer");
  });

  test("when starts_at has no time zone, then the calendar's 400 says a zone is needed", async () => {
    const { status, error } = await send(calendar, "POST", "/events", { ...validEvent, starts_at: "2026-03-02T10:00:00" });
    expect(status).toBe(400);
    expect(error.code).toBe("bad_request");
    expect(error.details.fields).toEqual(["starts_at"]);
    expect(error.details.errors[0]).toMatchObject({ field: "starts_at", rule: "format", allowed: "date-time" });
    expect(error.details.errors[0].message).toStartWith("starts_at must be an RFC 3339 date-time with a time zone");
  });

  test("when nested fields break their rules, then the path names the item", async () => {
    const { error } = await send(calendar, "POST", "/events", {
      ...validEvent,
      attendees: [{ email: "ada@example.com" }, { email: "nope", status: "maybe" }],
      reminder_minutes_before_start: 20_000,
    });
    expect(error.details.fields).toEqual(expect.arrayContaining(["attendees", "reminder_minutes_before_start"]));
    const byField = Object.fromEntries(error.details.errors.map((entry: { field: string }) => [entry.field, entry]));
    expect(byField["attendees[1].email"]).toMatchObject({ rule: "format", allowed: "email" });
    expect(byField["attendees[1].status"]).toMatchObject({ rule: "one_of", allowed: ["needs_action", "accepted", "declined", "tentative"] });
    expect(byField.reminder_minutes_before_start).toMatchObject({ rule: "range", allowed: { min: 0, max: 10_080 } });
    expect(byField.reminder_minutes_before_start.message).toBe("reminder_minutes_before_start must be an integer from 0 to 10080 (got 20000)");
  });

  test("when a calendar_id is not a UUID, then the rule is the format", async () => {
    const { error } = await send(calendar, "GET", "/events?calendar_id=12");
    expect(error.details.errors[0]).toMatchObject({ field: "calendar_id", rule: "format", message: "calendar_id must be a UUID" });
  });

  test.each([
    [{}, "name", "required", "name is required"],
    [{ team_ids: null }, "name", "required", "name is required"],
    [{ name: " " }, "name", "blank", "name must not be blank (only whitespace)"],
    [{ name: "k", team_ids: ["x"] }, "team_ids[0]", "format", "team_ids[0] must be a UUID"],
    [{ name: "k", team_ids: 7 }, "team_ids", "type", "team_ids must be an array or null (got the number 7)"],
    [{ name: "k", role: "king" }, "role", "one_of", "role must be one of owner, guest"],
    [{ name: "k", rate_limit_per_minute: 0 }, "rate_limit_per_minute", "range", "rate_limit_per_minute must be an integer from 1 to 1000 (got 0)"],
    [{ name: "k", rate_limit_per_minute: 1.5 }, "rate_limit_per_minute", "type", "rate_limit_per_minute must be an integer from 1 to 1000 (got the number 1.5)"],
    [{ name: "k", permissions: { docs: "root" } }, "permissions.docs", "one_of", "permissions.docs must be one of read, full"],
  ])("when a management-style body is %j, then %s fails the rule %s", async (body, field, rule, message) => {
    const { status, error } = await send(pages, "POST", "/keys", body);
    expect(status).toBe(422);
    expect(error.details.errors[0]).toMatchObject({ field, rule, message });
    expect(error.details.fields).toEqual([field.split(/[.[]/)[0]]);
  });

  test("when the body is not JSON, has no JSON Content-Type, or is not an object, then each 400 says which", async () => {
    expect((await send(pages, "POST", "/pages", "{not json")).error.message).toBe("The request body is not valid JSON.");
    expect((await send(pages, "POST", "/pages", '{"title":"a"}', "")).error.message).toBe(
      "Send the request body as JSON with Content-Type: application/json.",
    );
    expect((await send(pages, "POST", "/pages", '{"title":"a"}', "text/plain")).error.message).toBe(
      "Send the request body as JSON with Content-Type: application/json.",
    );
    expect((await send(pages, "POST", "/pages", "[1]")).error.message).toBe("The request body must be a JSON object.");
    for (const body of ["{not json", "[1]"]) expect((await send(pages, "POST", "/pages", body)).status).toBe(400);
  });
});

import { beforeAll, describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { managementClient, type ApiResponse, type Call } from "../../harness/http";
import { sharedSystem, type TestSystem } from "../../harness/system";
import { seedTenantWithClient, type Tenant } from "../../harness/tenant";

let system: TestSystem;
let tenant: Tenant;
let call: Call;
let calendarId: string;
beforeAll(async () => {
  ({ system, tenant, call } = await seedTenantWithClient());
  calendarId = (await call("POST", "/api/calendar/calendars", { name: "Validation" })).body.id;
});

/** The one field error of a refused request: status, code, `details.fields` and `details.errors` agree. */
function onlyFieldError(response: ApiResponse, status: number, code: string, field: string) {
  expectError(response, status, code, [field.split(/[.[]/)[0]!]);
  const { errors } = response.body.error.details;
  expect(errors).toHaveLength(1);
  expect(errors[0].field).toBe(field);
  expect(response.body.error.message).toBe(`${errors[0].message}.`);
  return errors[0];
}

describe("every validation error says per field which rule failed and what is allowed", () => {
  test.each([
    ["missing", {}, { rule: "required", message: "title is required" }],
    ["a number", { title: 42 }, { rule: "type", message: "title must be a string of at least 1 characters (got the number 42)" }],
    ["256 characters long", { title: "t".repeat(256) }, { rule: "length", message: "title must be 1 to 255 characters (got 256)", allowed: { min: 1, max: 255 } }],
    ["blank", { title: "   " }, { rule: "blank", message: "title must not be blank (only whitespace)" }],
  ])("when a page is created with a title that is %s, then 422 explains the title's rule", async (_label, body, expected) => {
    const error = onlyFieldError(await call("POST", "/v1/new-page", body), 422, "validation_error", "title");
    expect(error).toEqual({ field: "title", ...expected });
  });

  test("when a page update is empty, then both fields are named with the rule that one of them is needed", async () => {
    const page = await call("POST", "/v1/new-page", { title: "to update" });
    const response = await call("PUT", `/v1/new-page/${page.body.id}`, {});
    expectError(response, 422, "validation_error", ["title", "content"]);
    expect(response.body.error.details.errors.map((error: { rule: string }) => error.rule)).toEqual(["at_least_one", "at_least_one"]);
  });

  test("when pages are listed with sort=bogus, then 422 lists the allowed sorts", async () => {
    const error = onlyFieldError(await call("GET", "/v1/new-page?sort=bogus"), 422, "validation_error", "sort");
    expect(error).toEqual({ field: "sort", rule: "one_of", message: "sort must be one of updated_at, created_at, title", allowed: ["updated_at", "created_at", "title"] });
  });

  test("when an event's starts_at has no time zone, then the calendar's 400 says a zone is needed", async () => {
    const response = await call("POST", "/api/calendar/events", { calendar_id: calendarId, starts_at: "2026-03-02T10:00:00", ends_at: "2026-03-02T11:00:00Z" });
    const error = onlyFieldError(response, 400, "bad_request", "starts_at");
    expect(error).toMatchObject({ rule: "format", allowed: "date-time" });
    expect(error.message).toStartWith("starts_at must be an RFC 3339 date-time with a time zone");
  });

  test("when an event ends before it starts, then 422 names ends_at with the ordering rule", async () => {
    const response = await call("POST", "/api/calendar/events", { calendar_id: calendarId, starts_at: "2026-03-02T11:00:00Z", ends_at: "2026-03-02T10:00:00Z" });
    expect(onlyFieldError(response, 422, "validation_error", "ends_at").rule).toBe("order");
  });

  test("when the body is not JSON, or is sent without a JSON Content-Type, then each 400 says which", async () => {
    const broken = await call("POST", "/v1/new-page", "{not json");
    expectError(broken, 400, "bad_request");
    expect(broken.body.error.message).toBe("The request body is not valid JSON.");
    const untyped = await call("POST", "/v1/new-page", JSON.stringify({ title: "x" }), { "content-type": "text/plain" });
    expectError(untyped, 400, "bad_request");
    expect(untyped.body.error.message).toBe("Send the request body as JSON with Content-Type: application/json.");
    const notObject = await call("POST", "/api/calendar/events", "[]");
    expect(notObject.body.error.message).toBe("The request body must be a JSON object.");
  });

  test("when a management body breaks its rules, then the 422 has the same shape as the services'", async () => {
    const admin = managementClient(system.adminUrl, system.adminToken);
    const response = await admin("POST", `/admin/v1/workspaces/${tenant.workspaceId}/api-keys`, {
      name: "",
      created_by: "someone",
      scopes: ["docs:fly"],
      expires_at: "tomorrow",
    });
    expectError(response, 422, "validation_error", ["name", "created_by", "scopes", "expires_at"]);
    const byField = Object.fromEntries(response.body.error.details.errors.map((error: { field: string }) => [error.field, error]));
    expect(byField.name).toEqual({ field: "name", rule: "length", message: "name must be 1 to 100 characters (got 0)", allowed: { min: 1, max: 100 } });
    expect(byField.created_by).toMatchObject({ rule: "format", allowed: "uuid" });
    expect(byField["scopes[0]"]).toMatchObject({ rule: "one_of", allowed: expect.arrayContaining(["docs:read", "agents:run"]) });
    expect(byField.expires_at).toMatchObject({ rule: "format", allowed: "date-time" });
    const broken = await admin("POST", "/admin/v1/workspaces", "{not json");
    expect(broken.body.error.message).toBe("The request body is not valid JSON.");
    const untyped = await admin("POST", "/admin/v1/workspaces", JSON.stringify({ name: "x" }), { "content-type": "text/plain" });
    expect(untyped.body.error.message).toBe("Send the request body as JSON with Content-Type: application/json.");
  });
});

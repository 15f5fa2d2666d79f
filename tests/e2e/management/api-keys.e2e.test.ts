import { beforeAll, describe, expect, test } from "bun:test";
import { uuidv7 } from "@ws/shared";
import { expectError } from "../../harness/assertions";
import { apiClient, managementClient } from "../../harness/http";
import { sharedSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";
import { freshWindow } from "../ratelimit/helpers";

let system: TestSystem;
let tenant: Tenant;
let admin: ReturnType<typeof managementClient>;
beforeAll(async () => {
  system = await sharedSystem();
  tenant = await seedTenant(system);
  admin = managementClient(system.adminUrl, system.adminToken);
});

const keys = () => `/admin/v1/workspaces/${tenant.workspaceId}/api-keys`;

/** Waits until the wall clock is past `iso`: a deadline the server set, not a guess. */
async function until(iso: string): Promise<void> {
  const wait = new Date(iso).getTime() - Date.now() + 50;
  if (wait > 0) await Bun.sleep(wait);
}

describe("reading a key", () => {
  test("when a guest creates a key with docs scopes they cannot use, then the key shows them granted but not effective", async () => {
    const guest = await tenant.member("guest");
    const created = await admin("POST", keys(), { name: "guest key", created_by: guest, scopes: ["docs:read", "docs:create", "docs:delete"] });
    expect(created.status).toBe(201);
    expect(created.body.scopes).toEqual(["docs:read", "docs:create", "docs:delete"]);
    expect(created.body.effective_scopes).toEqual(["docs:read"]);
    const read = await admin("GET", `${keys()}/${created.body.id}`);
    expect(read.body).toMatchObject({ id: created.body.id, scopes: created.body.scopes, effective_scopes: ["docs:read"], status: "active" });
    expect(read.text).not.toContain(created.body.key);
    expectError(await apiClient(system.baseUrl, created.body.key)("POST", "/v1/new-page", { title: "not allowed" }), 403, "forbidden");
  });

  test("when the creator's role changes, then every listing shows the new effective scopes; a deactivated creator leaves none", async () => {
    const member = await tenant.member("member");
    const { id } = await tenant.keyWithId({ created_by: member, scopes: ["docs:read", "docs:create"] });
    await admin("PATCH", `/admin/v1/workspaces/${tenant.workspaceId}/members/${member}`, { role: "guest" });
    expect((await admin("GET", `${keys()}/${id}`)).body.effective_scopes).toEqual(["docs:read"]);
    await admin("PATCH", `/admin/v1/workspaces/${tenant.workspaceId}/members/${member}`, { active: false });
    const listed = (await admin("GET", `${keys()}?per_page=100`)).body.data.find((key: { id: string }) => key.id === id);
    expect(listed).toMatchObject({ effective_scopes: [], status: "creator_deactivated" });
  });

  test("when a key id is unknown, malformed or in another workspace, then it is 404", async () => {
    const other = await seedTenant(system);
    const { id } = await other.keyWithId();
    for (const keyId of [uuidv7(), "nope", id]) expectError(await admin("GET", `${keys()}/${keyId}`), 404, "not_found");
  });
});

describe("creating a key", () => {
  test("when permissions name a resource that has no levels, then 422 names it and lists the resources, and no key is made", async () => {
    const before = (await admin("GET", keys())).body.total;
    const refused = await admin("POST", keys(), { name: "pages", created_by: tenant.ownerId, permissions: { docs: "read", pages: "full" } });
    expectError(refused, 422, "validation_error", ["permissions"]);
    expect(refused.body.error.details.errors).toEqual([
      {
        field: "permissions.pages",
        rule: "unknown_field",
        message: "permissions.pages is not an allowed field; allowed: lists, docs, calendar, workflows, agents",
        allowed: ["lists", "docs", "calendar", "workflows", "agents"],
      },
    ]);
    expect((await admin("GET", keys())).body.total).toBe(before);
  });

  test("when a number is sent as a string of digits, then 422 says it must be an integer", async () => {
    const limit = await admin("POST", keys(), { name: "digits", created_by: tenant.ownerId, scopes: ["docs:read"], rate_limit_per_minute: "5" });
    expectError(limit, 422, "validation_error", ["rate_limit_per_minute"]);
    const { id } = await tenant.keyWithId();
    expectError(await admin("PATCH", `${keys()}/${id}`, { rate_limit_per_minute: "7" }), 422, "validation_error", ["rate_limit_per_minute"]);
    expectError(await admin("POST", `${keys()}/${id}/rotate`, { grace_seconds: "10" }), 422, "validation_error", ["grace_seconds"]);
  });

  test("when a create sends no body at all, then 422 names the required fields", async () => {
    const refused = await admin("POST", keys());
    expectError(refused, 422, "validation_error");
    expect(refused.body.error.details.errors.map((error: { rule: string }) => error.rule)).toContain("required");
  });
});

describe("updating a key", () => {
  test("when a key's name, rate limit and expiry are changed, then the record shows them and the very next request is held to the new limit", async () => {
    await freshWindow(10);
    const { id, key } = await tenant.keyWithId();
    const call = apiClient(system.baseUrl, key);
    expect((await call("GET", "/v1/new-page")).headers.get("x-ratelimit-limit")).toBe("1000");
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const updated = await admin("PATCH", `${keys()}/${id}`, { name: "renamed", rate_limit_per_minute: 7, expires_at: expiresAt });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: "renamed", rate_limit_per_minute: 7, expires_at: expiresAt });
    const next = await call("GET", "/v1/new-page");
    expect(next.status).toBe(200);
    expect(next.headers.get("x-ratelimit-limit")).toBe("7");
    expect(next.headers.get("x-ratelimit-remaining")).toBe("5");
    const cleared = await admin("PATCH", `${keys()}/${id}`, { rate_limit_per_minute: null, expires_at: null });
    expect(cleared.body).toMatchObject({ name: "renamed", rate_limit_per_minute: null, expires_at: null });
  });

  test("when a key's limit is lowered below what it has used this minute, then its very next request is refused 429", async () => {
    await freshWindow(10);
    const { id, key } = await tenant.keyWithId();
    const call = apiClient(system.baseUrl, key);
    for (let i = 0; i < 3; i++) expect((await call("GET", "/v1/new-page")).status).toBe(200);
    expect((await admin("PATCH", `${keys()}/${id}`, { rate_limit_per_minute: 2 })).status).toBe(200);
    const refused = await call("GET", "/v1/new-page");
    expectError(refused, 429, "rate_limit_exceeded");
    expect([refused.headers.get("x-ratelimit-limit"), refused.headers.get("x-ratelimit-remaining")]).toEqual(["2", "0"]);
  });

  test("when a refused key's limit is raised, then its very next request is admitted under the new limit", async () => {
    await freshWindow(10);
    const { id, key } = await tenant.keyWithId({ rate_limit_per_minute: 2 });
    const call = apiClient(system.baseUrl, key);
    for (let i = 0; i < 2; i++) expect((await call("GET", "/v1/new-page")).status).toBe(200);
    expectError(await call("GET", "/v1/new-page"), 429, "rate_limit_exceeded");
    expect((await admin("PATCH", `${keys()}/${id}`, { rate_limit_per_minute: 100 })).status).toBe(200);
    const admitted = await call("GET", "/v1/new-page");
    expect(admitted.status).toBe(200);
    expect([admitted.headers.get("x-ratelimit-limit"), admitted.headers.get("x-ratelimit-remaining")]).toEqual(["100", "96"]);
  });

  test("when a suspended key's limit is raised, then it stays suspended and its headers name the new limit", async () => {
    await freshWindow(10);
    const { id, key } = await tenant.keyWithId({ rate_limit_per_minute: 3 });
    const call = apiClient(system.baseUrl, key);
    // Past twice its limit in the minute, the key is suspended.
    for (let i = 0; i < 7; i++) await call("GET", "/v1/new-page");
    expectError(await call("GET", "/v1/new-page"), 429, "key_suspended");
    expect((await admin("PATCH", `${keys()}/${id}`, { rate_limit_per_minute: 1000 })).status).toBe(200);
    const still = await call("GET", "/v1/new-page");
    expectError(still, 429, "key_suspended");
    expect([still.headers.get("x-ratelimit-limit"), still.headers.get("x-ratelimit-remaining")]).toEqual(["1000", "0"]);
  });

  test("when a key's expiry is moved to a moment that then passes, then the key answers 401", async () => {
    const { id, key } = await tenant.keyWithId();
    const call = apiClient(system.baseUrl, key);
    expect((await call("GET", "/v1/new-page")).status).toBe(200);
    const updated = await admin("PATCH", `${keys()}/${id}`, { expires_at: new Date(Date.now() + 1500).toISOString() });
    expect((await call("GET", "/v1/new-page")).status).toBe(200);
    await until(updated.body.expires_at);
    expectError(await call("GET", "/v1/new-page"), 401, "invalid_token");
    expect((await admin("GET", `${keys()}/${id}`)).body.status).toBe("expired");
  });

  test("when an update is empty, in the past, without a zone or out of range, then 422 says per field what is allowed", async () => {
    const { id } = await tenant.keyWithId();
    const empty = await admin("PATCH", `${keys()}/${id}`, {});
    expectError(empty, 422, "validation_error", ["name", "rate_limit_per_minute", "expires_at"]);
    expect(empty.body.error.details.errors.map((error: { rule: string }) => error.rule)).toEqual(["at_least_one", "at_least_one", "at_least_one"]);
    const past = await admin("PATCH", `${keys()}/${id}`, { expires_at: "2001-01-01T00:00:00Z" });
    expect(past.body.error.details.errors).toEqual([{ field: "expires_at", rule: "future", message: "expires_at must be a date-time in the future" }]);
    const zoneless = await admin("PATCH", `${keys()}/${id}`, { expires_at: "2031-01-01T00:00:00" });
    expect(zoneless.body.error.details.errors[0]).toMatchObject({ field: "expires_at", rule: "format", allowed: "date-time" });
    const limit = await admin("PATCH", `${keys()}/${id}`, { rate_limit_per_minute: 0, name: " " });
    expect(limit.body.error.details.errors).toEqual([
      { field: "name", rule: "blank", message: "name must not be blank (only whitespace)" },
      { field: "rate_limit_per_minute", rule: "range", message: "rate_limit_per_minute must be an integer from 1 to 1000000 (got 0)", allowed: { min: 1, max: 1_000_000 } },
    ]);
  });
});

describe("rotating a key", () => {
  test("when a key is rotated with a grace, then both secrets work until the old one's time, then only the new one", async () => {
    const { id, key: oldKey } = await tenant.keyWithId();
    const before = await admin("GET", `${keys()}/${id}`);
    const rotated = await admin("POST", `${keys()}/${id}/rotate`, { grace_seconds: 2 });
    expect(rotated.status).toBe(200);
    const newKey: string = rotated.body.key;
    expect(newKey).not.toBe(oldKey);
    expect(rotated.body).toMatchObject({ id, previous_prefix: before.body.prefix, scopes: before.body.scopes, status: "active" });
    expect(newKey.startsWith(rotated.body.prefix)).toBe(true);
    expect(new Date(rotated.body.previous_key_expires_at).getTime() - new Date(rotated.body.rotated_at).getTime()).toBeWithin(1500, 2500);

    const [oldCall, newCall] = [apiClient(system.baseUrl, oldKey), apiClient(system.baseUrl, newKey)];
    expect((await oldCall("GET", "/v1/new-page")).status).toBe(200);
    expect((await newCall("GET", "/v1/new-page")).status).toBe(200);
    await until(rotated.body.previous_key_expires_at);
    expectError(await oldCall("GET", "/v1/new-page"), 401, "invalid_token");
    expect((await newCall("GET", "/v1/new-page")).status).toBe(200);

    const read = await admin("GET", `${keys()}/${id}`);
    expect(read.body).toMatchObject({ prefix: rotated.body.prefix, previous_prefix: before.body.prefix, previous_key_expires_at: rotated.body.previous_key_expires_at });
    expect(read.text).not.toContain(newKey);
  });

  test("when a key is rotated without a grace (or without any body), then the old secret stops at once; rotating again ends the older grace", async () => {
    const { id, key: first } = await tenant.keyWithId();
    const second = (await admin("POST", `${keys()}/${id}/rotate`, { grace_seconds: 3600 })).body.key;
    expect((await apiClient(system.baseUrl, first)("GET", "/v1/new-page")).status).toBe(200);
    const rotated = await admin("POST", `${keys()}/${id}/rotate`);
    expect(rotated.status).toBe(200);
    const third = rotated.body.key;
    expectError(await apiClient(system.baseUrl, first)("GET", "/v1/new-page"), 401, "invalid_token");
    expectError(await apiClient(system.baseUrl, second)("GET", "/v1/new-page"), 401, "invalid_token");
    expect((await apiClient(system.baseUrl, third)("GET", "/v1/new-page")).status).toBe(200);
  });

  test("when a rotated key is revoked, then both its secrets stop at once", async () => {
    const { id, key: oldKey } = await tenant.keyWithId();
    const newKey = (await admin("POST", `${keys()}/${id}/rotate`, { old_key_expires_at: new Date(Date.now() + 3_600_000).toISOString() })).body.key;
    expect((await apiClient(system.baseUrl, oldKey)("GET", "/v1/new-page")).status).toBe(200);
    expect((await admin("DELETE", `${keys()}/${id}`)).status).toBe(204);
    for (const key of [oldKey, newKey]) expectError(await apiClient(system.baseUrl, key)("GET", "/v1/new-page"), 401, "invalid_token");
  });

  test("when a rotation asks for more than a day, both kinds of end, or a revoked key, then 422 says which rule", async () => {
    const { id } = await tenant.keyWithId();
    const rotate = (body: unknown) => admin("POST", `${keys()}/${id}/rotate`, body);
    const long = await rotate({ grace_seconds: 86_401 });
    expect(long.body.error.details.errors).toEqual([
      { field: "grace_seconds", rule: "range", message: "grace_seconds must be an integer from 0 to 86400 (got 86401)", allowed: { min: 0, max: 86_400 } },
    ]);
    const far = await rotate({ old_key_expires_at: new Date(Date.now() + 2 * 86_400_000).toISOString() });
    expect(far.body.error.details.errors[0]).toMatchObject({ field: "old_key_expires_at", rule: "range" });
    const both = await rotate({ grace_seconds: 5, old_key_expires_at: new Date(Date.now() + 60_000).toISOString() });
    expectError(both, 422, "validation_error", ["grace_seconds", "old_key_expires_at"]);
    expect(both.body.error.details.errors[0].rule).toBe("one_only");
    await admin("DELETE", `${keys()}/${id}`);
    const revoked = await rotate({});
    expect(revoked.body.error.details.errors).toEqual([
      { field: "id", rule: "state", message: "The key is revoked and cannot be rotated; create a new key instead" },
    ]);
    expectError(await admin("POST", `${keys()}/${uuidv7()}/rotate`, {}), 404, "not_found");
  });
});

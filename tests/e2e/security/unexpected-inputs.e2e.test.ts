import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError, expectErrorNaming } from "../../harness/assertions";
import { apiClient, isErrorObject, readResponse, type Call } from "../../harness/http";
import { portOf, rawConnection, rawExchange } from "../../harness/raw-http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";

// Its own system, logging at info, so that what the gateway logs can be read.
let system: TestSystem;
let tenant: Tenant;
let call: Call;
let calendarId: string;
const logs: { name: string; line: string }[] = [];

beforeAll(async () => {
  system = await startSystem({ env: { LOG_LEVEL: "info" }, output: (name, line) => logs.push({ name, line }) });
  tenant = await seedTenant(system);
  call = apiClient(system.baseUrl, await tenant.key());
  calendarId = (await call("POST", "/api/calendar/calendars", { name: "Main" })).body.id;
});
afterAll(() => system?.stop());

const admin = async (method: string, path: string, body?: unknown) =>
  readResponse(
    await fetch(`${system.adminUrl}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${system.adminToken}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );

const LONE_SURROGATES = ["\ud800", "a\udfffb", "🦄\ud83e"];

describe("calendar text follows the same storable-text rule as pages", () => {
  test("when a calendar name holds a NUL or a lone surrogate, then 400 names the field and nothing is stored", async () => {
    for (const name of ["nul \u0000 inside", ...LONE_SURROGATES]) {
      expectErrorNaming(await call("POST", "/api/calendar/calendars", { name }), 400, "bad_request", ["name"]);
    }
    const listed = await call("GET", "/api/calendar/calendars?per_page=100");
    expect(listed.body.data.map((calendar: { name: string }) => calendar.name)).toEqual(["Main"]);
  });

  test("when event text holds a lone surrogate, then 400 names the field", async () => {
    const event = { calendar_id: calendarId, starts_at: "2026-03-02T10:00:00Z", ends_at: "2026-03-02T11:00:00Z" };
    for (const field of ["title", "location", "notes"]) {
      for (const text of LONE_SURROGATES) {
        expectErrorNaming(await call("POST", "/api/calendar/events", { ...event, [field]: text }), 400, "bad_request", [field]);
      }
    }
    expectErrorNaming(await call("POST", "/api/calendar/events", { ...event, attendees: [{ name: "\udc00" }] }), 400, "bad_request", ["attendees"]);
  });

  test("when event text holds paired surrogates, then it is stored and the list gives back exactly what the create answered", async () => {
    const created = await call("POST", "/api/calendar/events", {
      calendar_id: calendarId,
      starts_at: "2026-03-02T10:00:00Z",
      ends_at: "2026-03-02T11:00:00Z",
      title: "🦄 stand-up",
      attendees: [{ name: "Ada 🦄" }],
    });
    expect(created.status).toBe(201);
    const listed = await call("GET", `/api/calendar/events?calendar_id=${calendarId}&per_page=100`);
    expect(listed.body.data.find((event: { id: string }) => event.id === created.body.id)).toEqual(created.body);
  });
});

describe("requests whose target is not a path", () => {
  const port = () => portOf(system.baseUrl);

  // CONNECT carries an authority. (With a path instead, Deno's own parser answers an empty 400 before the gateway sees it.)
  test("when CONNECT arrives unauthenticated, on the public port or the management port, then a 4xx with the error object, never a 500", async () => {
    for (const [target, onPort] of ["foo", "example.com:443", "[::1", ":80"].flatMap((target) => [[target, port()], [target, portOf(system.adminUrl)]] as const)) {
      const [response] = await rawExchange(onPort, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`, 1);
      expect({ target, onPort, status: response?.status }).toEqual({ target, onPort, status: expect.any(Number) });
      expect(response!.status).toBeGreaterThanOrEqual(400);
      expect(response!.status).toBeLessThan(500);
      expect(isErrorObject(response!.body)).toBe(true);
    }
  });

  test("when the target cannot be read as a URL, then 400 with the error object", async () => {
    for (const target of ["http://[bad/v1/new-page", "http://h:99999/v1/new-page"]) {
      const [response] = await rawExchange(port(), `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 1);
      expectError(response!, 400, "bad_request");
    }
  });
});

describe("management inputs the database cannot hold", () => {
  test("when expires_at lies past year 9999 in UTC or has a six-digit year, then 422 names it", async () => {
    for (const expiresAt of ["9999-12-31T23:59:59-23:59", "+275760-09-13T00:00:00Z", "+010000-01-01T00:00:00Z", "275760-09-13T00:00:00Z"]) {
      const response = await admin("POST", `/workspaces/${tenant.workspaceId}/api-keys`, { name: "k", created_by: tenant.ownerId, scopes: ["docs:read"], expires_at: expiresAt });
      expect({ expiresAt, status: response.status }).toEqual({ expiresAt, status: 422 });
      expectError(response, 422, "validation_error", ["expires_at"]);
    }
  });

  test("when expires_at names a day or an hour that does not exist, then 422 names it instead of rolling it into the next", async () => {
    const created = await admin("POST", `/workspaces/${tenant.workspaceId}/api-keys`, { name: "k", created_by: tenant.ownerId, scopes: ["docs:read"] });
    for (const expiresAt of ["2030-02-30T00:00:00Z", "2030-01-01T24:00:00Z", "2031-02-29T00:00:00Z", "2030-04-31T10:00:00+02:00"]) {
      const response = await admin("POST", `/workspaces/${tenant.workspaceId}/api-keys`, { name: "k", created_by: tenant.ownerId, scopes: ["docs:read"], expires_at: expiresAt });
      expect({ expiresAt, status: response.status }).toEqual({ expiresAt, status: 422 });
      expectError(response, 422, "validation_error", ["expires_at"]);
      expectError(await admin("PATCH", `/workspaces/${tenant.workspaceId}/api-keys/${created.body.id}`, { expires_at: expiresAt }), 422, "validation_error", ["expires_at"]);
    }
    // A leap second ends a UTC day: read as the next day's first instant.
    const leap = await admin("PATCH", `/workspaces/${tenant.workspaceId}/api-keys/${created.body.id}`, { expires_at: "2032-12-31T23:59:60Z" });
    expect(leap.body.expires_at).toBe("2033-01-01T00:00:00.000Z");
  });

  test("when expires_at is the last instant of year 9999, then the key is created", async () => {
    const response = await admin("POST", `/workspaces/${tenant.workspaceId}/api-keys`, { name: "k", created_by: tenant.ownerId, scopes: ["docs:read"], expires_at: "9999-12-31T23:59:59Z" });
    expect(response.status).toBe(201);
    expect(response.body.expires_at).toBe("9999-12-31T23:59:59.000Z");
  });

  test("when a name holds a NUL or a lone surrogate, then 422 names it", async () => {
    for (const name of ["nul \u0000", ...LONE_SURROGATES]) {
      expectError(await admin("POST", "/workspaces", { name }), 422, "validation_error", ["name"]);
      expectError(await admin("POST", `/workspaces/${tenant.workspaceId}/teams`, { name }), 422, "validation_error", ["name"]);
      expectError(await admin("POST", `/workspaces/${tenant.workspaceId}/members`, { email: `m${crypto.randomUUID()}@example.com`, role: "member", name }), 422, "validation_error", ["name"]);
      expectError(await admin("POST", `/workspaces/${tenant.workspaceId}/api-keys`, { name, created_by: tenant.ownerId, scopes: ["docs:read"] }), 422, "validation_error", ["name"]);
    }
  });
});

describe("a client that goes away in the middle of its body", () => {
  test("when the connection closes mid-body, then the gateway logs the request at info without a 500, and nothing at error", async () => {
    const key = await tenant.key();
    const page = (await apiClient(system.baseUrl, key)("POST", "/v1/new-page", { title: "t" })).body;
    const requestId = `gone-${crypto.randomUUID()}`;
    const connection = rawConnection(portOf(system.baseUrl));
    await connection.write(
      `PUT /v1/new-page/${page.id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-Request-Id: ${requestId}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"content":"${"x".repeat(5000)}`,
    );
    await Bun.sleep(300);
    connection.close();
    const deadline = Date.now() + 10_000;
    let logged: Record<string, unknown> | undefined;
    while (!logged && Date.now() < deadline) {
      await Bun.sleep(100);
      logged = logs
        .filter(({ name, line }) => name === "gateway" && line.includes(requestId))
        .map(({ line }) => JSON.parse(line) as Record<string, unknown>)
        .find((entry) => entry.message === "request");
    }
    expect(logged).toMatchObject({ level: "info", route: "updatePage", status: 400 });
    const errors = logs.filter(({ line }) => line.includes(requestId) && !line.includes('"level":"info"'));
    expect(errors).toEqual([]);
    expect(logs.filter(({ line }) => line.includes('"level":"error"'))).toEqual([]);
    // The page is unchanged.
    expect((await apiClient(system.baseUrl, key)("GET", `/v1/new-page/${page.id}`)).body.content).toBe("");
  });
});

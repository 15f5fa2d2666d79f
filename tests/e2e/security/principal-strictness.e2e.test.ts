import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { SignJWT } from "jose";
import { PRINCIPAL_HEADER, signPrincipal, signingKeyFrom, uuidv7, type Principal, type Scope } from "@ws/shared";
import { expectError } from "../../harness/assertions";
import { apiClient, readResponse } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";

/**
 * The services trust the principal the gateway signs only while it is fresh
 * (iat and exp present, issued at most 60 s ago, for at most 60 s) and only for
 * the scope of the operation asked for. A previous signing key is accepted next
 * to the current one, so the key can be rotated without a failed request.
 */

const CURRENT = randomBytes(32).toString("base64url");
const PREVIOUS = randomBytes(32).toString("base64url");
let system: TestSystem;
let tenant: Tenant;
let pageId: string;

beforeAll(async () => {
  // Mid-rotation: the services already hold the new key and still accept the old one; the gateway signs with the old.
  system = await startSystem({
    env: { INTERNAL_SIGNING_KEY: CURRENT, INTERNAL_SIGNING_KEY_PREVIOUS: PREVIOUS },
    gatewayEnv: { INTERNAL_SIGNING_KEY: PREVIOUS },
  });
  tenant = await seedTenant(system);
  const created = await direct(system.pagesUrl, "POST", "/v1/new-page", signPrincipal(principal(), { method: "POST", path: "/v1/new-page" }, signingKeyFrom(CURRENT)), { title: "target" });
  expect(created.status).toBe(201);
  pageId = created.body.id;
}, 180_000);

afterAll(async () => {
  await system?.stop();
});

const ALL_DOCS: Scope[] = ["docs:read", "docs:create", "docs:update", "docs:delete"];
const principal = (scopes: Scope[] = ALL_DOCS): Principal => ({
  workspace_id: tenant.workspaceId,
  member_id: tenant.ownerId,
  key_id: uuidv7(),
  scopes,
  target_team_ids: null,
  visible_team_ids: [],
  request_id: "principal-strictness",
});

/** Calls a service directly, as only the gateway should, with this token. */
async function direct(base: string, method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { [PRINCIPAL_HEADER]: token, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return readResponse(response);
}

/** A token shaped like the gateway's, with the time claims chosen here (null leaves one out). */
function token(method: string, path: string, times: { iat: number | null; exp: number | null }, secret = CURRENT): Promise<string> {
  const jwt = new SignJWT({ ...principal(), htm: method, htu: path }).setProtectedHeader({ alg: "HS256" }).setIssuer("workspace-gateway").setAudience("workspace-services");
  if (times.iat !== null) jwt.setIssuedAt(times.iat);
  if (times.exp !== null) jwt.setExpirationTime(times.exp);
  return jwt.sign(signingKeyFrom(secret));
}

const now = () => Math.floor(Date.now() / 1000);

describe("the internal principal's time claims", () => {
  test("when a token is fresh, then the service answers", async () => {
    const path = `/v1/new-page/${pageId}`;
    expect((await direct(system.pagesUrl, "GET", path, await token("GET", path, { iat: now(), exp: now() + 60 }))).status).toBe(200);
  });

  test.each([
    ["has no exp", () => ({ iat: now(), exp: null })],
    ["has no iat", () => ({ iat: null, exp: now() + 60 })],
    ["was issued 61 s ago, though exp is still ahead", () => ({ iat: now() - 61, exp: now() + 30 })],
    ["was issued with a lifetime of 120 s", () => ({ iat: now(), exp: now() + 120 })],
    ["was issued with a lifetime of a year", () => ({ iat: now(), exp: now() + 365 * 86_400 })],
    ["claims to be issued a minute from now", () => ({ iat: now() + 60, exp: now() + 90 })],
  ])("when a token %s, then the service refuses it with 401", async (_, times) => {
    const path = `/v1/new-page/${pageId}`;
    expectError(await direct(system.pagesUrl, "GET", path, await token("GET", path, times())), 401, "invalid_token");
  });
});

describe("the operation's scope, checked again by the service", () => {
  test("when a principal lacks docs:delete, then the pages service refuses the delete with 403 and the page stays", async () => {
    const path = `/v1/new-page/${pageId}`;
    const readOnly = signPrincipal(principal(["docs:read", "docs:update"]), { method: "DELETE", path }, signingKeyFrom(CURRENT));
    expectError(await direct(system.pagesUrl, "DELETE", path, readOnly), 403, "insufficient_permissions");
    const read = signPrincipal(principal(), { method: "GET", path }, signingKeyFrom(CURRENT));
    expect((await direct(system.pagesUrl, "GET", path, read)).status).toBe(200);
  });

  test("when a principal lacks the create scope, then each service refuses the create with 403, before reading the body", async () => {
    const pages = signPrincipal(principal(["docs:read"]), { method: "POST", path: "/v1/new-page" }, signingKeyFrom(CURRENT));
    expectError(await direct(system.pagesUrl, "POST", "/v1/new-page", pages, { title: "no" }), 403, "insufficient_permissions");
    const calendar = signPrincipal({ ...principal(["calendar:read"]) }, { method: "POST", path: "/api/calendar/calendars/" }, signingKeyFrom(CURRENT));
    expectError(await direct(system.calendarUrl, "POST", "/api/calendar/calendars/", calendar, "not even json"), 403, "insufficient_permissions");
  });

  test("when a principal has the scope, then the same calls succeed", async () => {
    const calendar = signPrincipal(principal(["calendar:create"]), { method: "POST", path: "/api/calendar/calendars" }, signingKeyFrom(CURRENT));
    expect((await direct(system.calendarUrl, "POST", "/api/calendar/calendars", calendar, { name: "allowed" })).status).toBe(201);
  });
});

describe("rotating the signing key", () => {
  test("when the services hold a new key and the previous one, then tokens of either pass and of any other key do not", async () => {
    const path = `/v1/new-page/${pageId}`;
    const times = { iat: now(), exp: now() + 60 };
    expect((await direct(system.pagesUrl, "GET", path, await token("GET", path, times, CURRENT))).status).toBe(200);
    expect((await direct(system.pagesUrl, "GET", path, await token("GET", path, times, PREVIOUS))).status).toBe(200);
    expectError(await direct(system.pagesUrl, "GET", path, await token("GET", path, times, randomBytes(32).toString("base64url"))), 401, "invalid_token");
  });

  test("when the gateway still signs with the previous key, then requests through it succeed on both services", async () => {
    const call = apiClient(system.baseUrl, await tenant.key());
    expect((await call("GET", `/v1/new-page/${pageId}`)).status).toBe(200);
    expect((await call("POST", "/api/calendar/calendars", { name: "mid-rotation" })).status).toBe(201);
    expect((await call("GET", "/api/calendar/events")).status).toBe(200);
  });
});

import { beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ATTENDEE_STATUSES, PUBLIC_OPERATION_LIST, type PublicOperation } from "@ws/shared";
import {
  assertFuzzed,
  bodyBytes,
  CONNECT_TARGET,
  fieldValue,
  fuzzRuns,
  headerList,
  idSegment,
  INTERESTING_STRING,
  METHOD,
  objectBody,
  pathVariant,
  queryString,
  send,
  verdict,
  type FuzzRequest,
} from "../../harness/fuzz";
import { apiClient } from "../../harness/http";
import { assertConforms, describeOperation } from "../../harness/openapi-conformance";
import type { RawResponse } from "../../harness/raw-http";
import { portOf } from "../../harness/raw-http";
import { sharedSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";

/**
 * "No 500 from any input" on the public port: requests to every public
 * operation, through the real gateway, with any method, path, query, headers
 * and body. Each answer must be the error object (4xx) or a success the
 * OpenAPI document describes; nothing may be a 5xx or go unanswered.
 */
let system: TestSystem;
let port: number;
let credentials: string[];
let pageIds: string[];
let calendarIds: string[];
let teamIds: string[];

beforeAll(async () => {
  system = await sharedSystem();
  port = portOf(system.baseUrl);
  const tenant = await seedTenant(system);
  const team = await tenant.team();
  const full = await tenant.key({ rate_limit_per_minute: 1_000_000 });
  const teamKey = await tenant.key({ rate_limit_per_minute: 1_000_000, team_ids: [team] });
  const readOnly = await tenant.key({ rate_limit_per_minute: 1_000_000, scopes: ["docs:read", "calendar:read"] });
  const call = apiClient(system.baseUrl, full);
  pageIds = [(await call("POST", "/v1/new-page", { title: "fuzz target", content: "text" })).body.id];
  calendarIds = [(await call("POST", "/api/calendar/calendars", { name: "fuzz" })).body.id, (await call("POST", "/api/calendar/calendars", { name: "team", team_id: team })).body.id];
  teamIds = [team];
  credentials = [full, full, full, teamKey, readOnly, "wsk_invalidkey", "not-a-key", ""];
});

/** Values that mean something to the operations' fields, mixed with anything. */
function fieldValues(): Record<string, fc.Arbitrary<unknown>> {
  const id = (known: () => string[]) => fc.oneof(fc.constantFrom(...known()), fc.uuid(), fc.constant(null));
  const dateTime = fc.oneof(
    fc.date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true }).map((date) => date.toISOString()),
    fc.constantFrom("2026-03-02T10:00:00+01:00", "2026-03-02 10:00:00Z", "2026-03-02T10:00:00", "9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+00:01"),
  );
  const attendee = objectBody(["email", "name", "status"], { status: fc.constantFrom(...ATTENDEE_STATUSES), email: fc.emailAddress(), name: INTERESTING_STRING });
  return {
    title: INTERESTING_STRING,
    content: INTERESTING_STRING,
    name: INTERESTING_STRING,
    team_id: id(() => teamIds),
    calendar_id: id(() => calendarIds),
    starts_at: dateTime,
    ends_at: dateTime,
    notes: INTERESTING_STRING,
    location: INTERESTING_STRING,
    conference_url: fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), INTERESTING_STRING),
    reminder_minutes_before_start: fc.integer({ min: -10, max: 10_100 }),
    is_all_day: fc.boolean(),
    attendees: fc.oneof(fc.array(attendee, { maxLength: 4 }), fc.array(fieldValue(), { maxLength: 3 })),
  };
}

const propertiesOf = (schema: unknown): string[] => Object.keys((schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});

function operationRequest(route: PublicOperation): fc.Arbitrary<FuzzRequest> {
  const path = route.path.includes(":id") ? idSegment(pageIds).map((id) => route.path.replace(":id", id)) : fc.constant(route.path);
  const method = fc.oneof({ weight: 4, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: METHOD });
  const body = route.body ? bodyBytes(objectBody(propertiesOf(route.body), fieldValues())) : fc.option(bodyBytes(objectBody([])), { freq: 6 }).map((bytes) => bytes ?? undefined);
  return fc
    .tuple(method, path.chain(pathVariant), queryString(propertiesOf(route.query)), headerList(credentials), body)
    .map(([verb, target, query, headers, bytes]) => ({ method: verb, target: target + query, headers, body: bytes }));
}

/** CONNECT, and paths no operation has (or that only look like one). */
function strayRequest(): fc.Arbitrary<FuzzRequest> {
  const connect = fc.tuple(CONNECT_TARGET, headerList(credentials)).map(([target, headers]) => ({ method: "CONNECT", target, headers }));
  const path = fc.oneof(
    fc.constantFrom("/", "/healthz", "/readyz", "/openapi.json", "/docs", "/metrics", "/admin/v1/workspaces", "/v1", "/v2/new-page", "/api/calendar", "/api/calendar/events/x/y"),
    fc.webPath().map((webPath) => webPath || "/"),
    fc.constantFrom("http://evil.example/v1/new-page", "HTTP://localhost/api/calendar/events", "//v1/new-page"),
  );
  const other = fc.tuple(METHOD, path, headerList(credentials), fc.option(bodyBytes(objectBody(["title"])), { freq: 3 })).map(([method, target, headers, body]) => ({
    method,
    target,
    headers,
    body: body ?? undefined,
  }));
  // The asterisk form belongs to OPTIONS alone (another method with it is the parser's to refuse).
  const asterisk = headerList(credentials).map((headers) => ({ method: "OPTIONS", target: "*", headers }));
  return fc.oneof(connect, other, asterisk);
}

/**
 * A success is valid when the OpenAPI document describes it, body and headers
 * included, for the path as URLs read it (`/./v1/new-page` is `/v1/new-page`).
 * HEAD answers as GET would, without the body.
 */
function describedSuccess(request: FuzzRequest) {
  return (response: RawResponse): string | null => {
    const url = URL.parse(request.target, "http://localhost");
    const path = url ? url.pathname + url.search : request.target;
    if (request.method === "HEAD") {
      return describeOperation("GET", path).responses[String(response.status)] ? null : `HEAD ${path} → ${response.status}, which GET does not answer`;
    }
    try {
      assertConforms({ method: request.method, path, status: response.status, headers: new Headers(response.headers), text: response.text });
      return null;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };
}

describe("fuzzing the public port", () => {
  test("when any request reaches any public operation, then no 5xx and every answer is the error object or a described success", async () => {
    const request = fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...PUBLIC_OPERATION_LIST).chain(operationRequest) }, { weight: 2, arbitrary: strayRequest() });
    const statuses = new Map<number, number>();
    await assertFuzzed(
      "public port",
      fc.asyncProperty(request, async (sent) => {
        const response = await send(port, sent);
        if (response) statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const problem = verdict(sent, response, describedSuccess(sent));
        if (problem) throw new Error(`${sent.method} ${sent.target} → ${problem}\nheaders: ${JSON.stringify(sent.headers)}\nbody: ${sent.body ? Buffer.from(sent.body).toString("latin1").slice(0, 300) : "(none)"}`);
      }),
      fuzzRuns(400),
    );
    // The run reached the operations, not only the front door: successes and several kinds of refusal.
    if (process.env.FUZZ_STATS) console.log(JSON.stringify(Object.fromEntries(statuses)));
    expect([...statuses.keys()].filter((status) => status < 300).length).toBeGreaterThan(0);
    expect([...statuses.keys()].filter((status) => status >= 400).length).toBeGreaterThan(3);
  });
});

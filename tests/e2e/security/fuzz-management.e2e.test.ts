import { beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { PERMISSION_LEVELS, ROLES, SCOPES } from "@ws/shared";
import {
  assertFuzzed,
  bodyBytes,
  CONNECT_TARGET,
  fieldValue,
  FUZZ_SEED,
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
import type { RawResponse } from "../../harness/raw-http";
import { portOf } from "../../harness/raw-http";
import { sharedSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";

/**
 * "No 500 from any input" on the management API (the gateway's internal port):
 * every operation of gateway/src/admin/, with any method, path, query, headers
 * and body, mostly with the admin token. Each answer must be the error object
 * (4xx) or a success with a JSON object (204: nothing); never a 5xx.
 */
let system: TestSystem;
let port: number;
let workspaceIds: string[];
let memberIds: string[];
let teamIds: string[];
let keyIds: string[];

interface Operation {
  method: string;
  path: (ids: { ws: fc.Arbitrary<string>; member: fc.Arbitrary<string>; key: fc.Arbitrary<string> }) => fc.Arbitrary<string>;
  body?: () => fc.Arbitrary<Record<string, unknown>>;
  query?: string[];
}

const teamIdList = () => fc.oneof(fc.array(fc.oneof(fc.constantFrom(...teamIds), fc.uuid(), INTERESTING_STRING), { maxLength: 4 }), fc.constant(null), fieldValue());
const role = () => fc.oneof(fc.constantFrom(...ROLES), INTERESTING_STRING);
const permissions = () =>
  fc.oneof(
    fc.record(Object.fromEntries(Object.entries(PERMISSION_LEVELS).map(([resource, levels]) => [resource, fc.oneof(fc.constantFrom(...Object.keys(levels)), INTERESTING_STRING)])), { requiredKeys: [] }),
    fieldValue(),
  );

const OPERATIONS: Operation[] = [
  { method: "POST", path: () => fc.constant("/admin/v1/workspaces"), body: () => objectBody(["name"]) },
  { method: "POST", path: ({ ws }) => ws.map((id) => `/admin/v1/workspaces/${id}/teams`), body: () => objectBody(["name"]) },
  {
    method: "POST",
    path: ({ ws }) => ws.map((id) => `/admin/v1/workspaces/${id}/members`),
    body: () => objectBody(["email", "name", "role", "team_ids"], { email: fc.emailAddress(), role: role(), team_ids: teamIdList() }),
  },
  {
    method: "PATCH",
    path: ({ ws, member }) => fc.tuple(ws, member).map(([id, memberId]) => `/admin/v1/workspaces/${id}/members/${memberId}`),
    body: () => objectBody(["role", "active", "team_ids"], { role: role(), active: fc.boolean(), team_ids: teamIdList() }),
  },
  {
    method: "POST",
    path: ({ ws }) => ws.map((id) => `/admin/v1/workspaces/${id}/api-keys`),
    body: () =>
      objectBody(["name", "created_by", "scopes", "permissions", "team_ids", "expires_at", "rate_limit_per_minute", "streaming"], {
        created_by: fc.oneof(fc.constantFrom(...memberIds), fc.uuid()),
        scopes: fc.array(fc.oneof(fc.constantFrom(...SCOPES), INTERESTING_STRING), { maxLength: 5 }),
        permissions: permissions(),
        team_ids: teamIdList(),
        expires_at: fc.oneof(
          fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true }).map((date) => date.toISOString()),
          fc.constantFrom("9999-12-31T23:59:59-23:59", "+275760-09-13T00:00:00Z", "2999-01-01T00:00:00+23:59", "2030-01-01 00:00:00Z"),
        ),
        rate_limit_per_minute: fc.oneof(fc.integer({ min: -2, max: 2_000_000 }), fc.constant(null)),
        streaming: fc.boolean(),
      }),
  },
  { method: "GET", path: ({ ws }) => ws.map((id) => `/admin/v1/workspaces/${id}/api-keys`), query: ["page", "per_page"] },
  { method: "DELETE", path: ({ ws, key }) => fc.tuple(ws, key).map(([id, keyId]) => `/admin/v1/workspaces/${id}/api-keys/${keyId}`) },
];

beforeAll(async () => {
  system = await sharedSystem();
  port = portOf(system.adminUrl);
  const tenant = await seedTenant(system);
  const team = await tenant.team();
  const member = await tenant.member("member", [team]);
  workspaceIds = [tenant.workspaceId];
  memberIds = [tenant.ownerId, member];
  teamIds = [team];
  keyIds = [(await tenant.keyWithId()).id, (await tenant.keyWithId()).id];
});

function operationRequest(operation: Operation): fc.Arbitrary<FuzzRequest> {
  const ids = { ws: idSegment(workspaceIds), member: idSegment(memberIds), key: idSegment(keyIds) };
  const method = fc.oneof({ weight: 4, arbitrary: fc.constant(operation.method) }, { weight: 1, arbitrary: METHOD });
  const body = operation.body ? bodyBytes(operation.body()) : fc.option(bodyBytes(objectBody([])), { freq: 6 }).map((bytes) => bytes ?? undefined);
  // Mostly the admin token; sometimes none or a wrong one.
  const headers = headerList([system.adminToken, system.adminToken, system.adminToken, "wrong-admin-token-0123456789", ""]);
  return fc
    .tuple(method, operation.path(ids).chain(pathVariant), queryString(operation.query ?? []), headers, body)
    .map(([verb, target, query, list, bytes]) => ({ method: verb, target: target + query, headers: list, body: bytes }));
}

function strayRequest(): fc.Arbitrary<FuzzRequest> {
  const headers = headerList([system.adminToken, "wrong-admin-token-0123456789"]);
  const connect = fc.tuple(CONNECT_TARGET, headers).map(([target, list]) => ({ method: "CONNECT", target, headers: list }));
  const path = fc.oneof(fc.constantFrom("/", "/admin", "/admin/v1", "/admin/v2/workspaces", "/metrics", "/healthz", "/readyz", "/v1/new-page"), fc.webPath().map((webPath) => webPath || "/"));
  const other = fc.tuple(METHOD, path, headers).map(([method, target, list]) => ({ method, target, headers: list }));
  return fc.oneof(connect, other);
}

/** A management success is a JSON object (a list envelope, a created or changed record), or nothing for 204. */
function jsonSuccess(request: FuzzRequest) {
  return (response: RawResponse): string | null => {
    if (request.method === "HEAD" || response.status === 204) return response.text === "" ? null : `${response.status} with a body`;
    const path = URL.parse(request.target, "http://localhost")?.pathname ?? request.target;
    if (path === "/metrics") return /^# (HELP|TYPE) /m.test(response.text) ? null : "metrics that are not in the Prometheus format";
    const body = response.body;
    return body !== null && typeof body === "object" && !Array.isArray(body) ? null : `${response.status} whose body is not a JSON object: ${response.text.slice(0, 200)}`;
  };
}

describe("fuzzing the management API", () => {
  test("when any request reaches any management operation, then no 5xx and every answer is the error object or a JSON success", async () => {
    const request = fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...OPERATIONS).chain(operationRequest) }, { weight: 1, arbitrary: strayRequest() });
    const statuses = new Map<number, number>();
    await assertFuzzed(
      "management API",
      fc.asyncProperty(request, async (sent) => {
        const response = await send(port, sent);
        if (response) statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const problem = verdict(sent, response, jsonSuccess(sent));
        if (problem) throw new Error(`${sent.method} ${sent.target} → ${problem}\nheaders: ${JSON.stringify(sent.headers)}\nbody: ${sent.body ? Buffer.from(sent.body).toString("latin1").slice(0, 300) : "(none)"}`);
      }),
      fuzzRuns(300),
    );
    if (process.env.FUZZ_STATS) console.log(JSON.stringify(Object.fromEntries(statuses)));
    // A run with no success at all is one to replay: its seed and what it was answered.
    if (![...statuses.keys()].some((status) => status < 300)) console.log(`management fuzz without a success: FUZZ_SEED=${FUZZ_SEED}, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    expect([...statuses.keys()].filter((status) => status < 300).length).toBeGreaterThan(0);
    expect([...statuses.keys()].filter((status) => status >= 400).length).toBeGreaterThan(3);
  });
});

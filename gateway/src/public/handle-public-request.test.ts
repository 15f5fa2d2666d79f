import { createServer } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ApiError, createBodyBudget, PRINCIPAL_HEADER, signingKeyFrom, toResponse, verifyPrincipal, type Logger, type Role, type Scope } from "@ws/shared";
import { bunRuntime } from "@ws/shared/runtime/bun";
import type { Authenticated, Authenticator, Credential } from "../auth/authenticator";
import { unauthorized } from "../auth/extract-credential";
import { createMemoryAuthFailureLimiter } from "../ratelimit/auth-failure-limiter";
import { createMemoryLimiter } from "../ratelimit/memory-limiter";
import { createRouteTable } from "../routing/route-table";
import { GivenUpAnswers } from "../proxy/given-up-answers";
import { createPublicRequestHandler, type PublicRequestDeps } from "./handle-public-request";

/*
 * The gateway's pipeline in one process: real route table, limiters, body
 * budget and principal signing; a fake authenticator (a map of keys, no
 * database) and a fake service on a free port that says what it received.
 */

const signingKey = signingKeyFrom("pipeline-test-signing-key-0123456789");
const MiB = 1024 * 1024;
/** Two seconds into a clock minute, so a test's requests share one rate-limit window until it moves the clock. */
const START = Date.UTC(2026, 0, 1, 12, 0, 2);

function credential(keyId: string, overrides: Partial<Credential> = {}): Credential {
  return {
    keyId,
    workspaceId: "ws-1",
    memberId: "member-1",
    keyScopes: ["docs:read", "docs:create", "calendar:read", "calendar:create"] as Scope[],
    role: "member" as Role,
    targetTeamIds: null,
    visibleTeamIds: ["team-1"],
    rateLimitPerMinute: null,
    epoch: "1",
    revoked: false,
    memberActive: true,
    expiresAt: null,
    ...overrides,
  };
}

/** Keys it knows answer at once; an unknown key is "looked up" (after `beforeLookup`) and refused, as the real one does. */
function fakeAuthenticator(keys: Record<string, Credential>, lookups: { count: number }): Authenticator {
  return {
    async authenticate(key: string, beforeLookup?: () => Promise<void>): Promise<Authenticated> {
      const known = keys[key];
      if (known) return { credential: known, fresh: false, hash: key };
      await beforeLookup?.();
      lookups.count += 1;
      throw unauthorized("invalid_token", "The API key is not valid.");
    },
    async confirm(_key: string, authenticated: Authenticated) {
      return authenticated.credential;
    },
    forgetAll() {},
  };
}

interface Received {
  method: string;
  path: string;
  headers: Headers;
  bodyBytes: number;
}

let upstream: ReturnType<typeof Bun.serve>;
let upstreamUrl: string;
let received: Received[] = [];
/** What the fake service does next: answer, hang past the gateway's timeout, or stream a long answer. */
let upstreamMode: "answer" | "hang" | "stream" = "answer";
/** The long answer's length: too long for the gateway to read whole, so passed on as it comes. */
const STREAMED_ANSWER_BYTES = 4 * MiB;

beforeAll(() => {
  upstream = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const bodyBytes = (await request.arrayBuffer()).byteLength;
      received.push({ method: request.method, path: url.pathname + url.search, headers: request.headers, bodyBytes });
      if (upstreamMode === "hang") await new Promise((resolve) => setTimeout(resolve, 500));
      if (upstreamMode === "stream") {
        let sent = 0;
        const piece = new Uint8Array(64 * 1024).fill(0x61);
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent >= STREAMED_ANSWER_BYTES) return controller.close();
            sent += piece.byteLength;
            controller.enqueue(piece);
          },
        });
        return new Response(body, { headers: { "content-type": "application/json" } });
      }
      return Response.json({ served: true }, { status: request.method === "POST" ? 201 : 200, headers: { "x-from-service": "yes" } });
    },
  });
  upstreamUrl = `http://127.0.0.1:${upstream.port}`;
});

afterAll(() => {
  upstream.stop(true);
});

interface Setup {
  deps: PublicRequestDeps;
  handle: (request: Request, clientAddress?: string) => Promise<Response>;
  clock: { now: number };
  lookups: { count: number };
  logs: { level: string; message: string; fields?: Record<string, unknown> }[];
  observed: { route: string; method: string; status: number; outcome?: string }[];
}

function setup(overrides: Partial<PublicRequestDeps> = {}): Setup {
  const clock = { now: START };
  const now = () => clock.now;
  const lookups = { count: 0 };
  const logs: Setup["logs"] = [];
  const observed: Setup["observed"] = [];
  const logAt = (level: string) => (message: string, fields?: Record<string, unknown>) => void logs.push({ level, message, fields });
  const logger: Logger = { debug: logAt("debug"), info: logAt("info"), warn: logAt("warn"), error: logAt("error") };
  const deps: PublicRequestDeps = {
    routes: createRouteTable(),
    authenticator: fakeAuthenticator(
      {
        "key-member": credential("key-member"),
        "key-limited": credential("key-limited", { rateLimitPerMinute: 2 }),
        "key-reader": credential("key-reader", { keyScopes: ["docs:read"] }),
        "key-guest": credential("key-guest", { role: "guest", keyScopes: ["docs:read", "docs:create"] }),
      },
      lookups,
    ),
    limiter: createMemoryLimiter({ suspendAfterMultiple: 2, suspendSeconds: 60 }, null, now),
    authFailures: createMemoryAuthFailureLimiter(3, now),
    signingKey,
    upstreams: { pages: upstreamUrl, calendar: upstreamUrl },
    sendUpstream: bunRuntime.sendUpstream,
    upstreamTimeoutMs: 2_000,
    bodyBudget: createBodyBudget({ totalBytes: 64 * MiB }),
    defaultRateLimit: 100,
    logger,
    observe: (event) => void observed.push(event),
    givenUpAnswers: new GivenUpAnswers(),
    ...overrides,
  };
  const handler = createPublicRequestHandler(deps);
  return { deps, handle: async (request, clientAddress = "203.0.113.7") => toResponse(await handler(request, clientAddress)), clock, lookups, logs, observed };
}

function request(method: string, path: string, options: { key?: string; headers?: Record<string, string>; body?: BodyInit } = {}): Request {
  const headers = new Headers(options.headers);
  if (options.key) headers.set("authorization", `Bearer ${options.key}`);
  if (options.body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
  return new Request(`http://gateway${path}`, { method, headers, body: options.body });
}

async function errorCode(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

beforeEach(() => {
  received = [];
  upstreamMode = "answer";
});

describe("the order of the gateway's checks", () => {
  test("when the headers are too many, then the answer is 431 before the path or the key is looked at", async () => {
    const { handle, lookups } = setup();
    const headers: Record<string, string> = {};
    for (let i = 0; i < 101; i++) headers[`x-extra-${i}`] = "1";
    const response = await handle(request("GET", "/no/such/path", { headers }));
    expect(response.status).toBe(431);
    expect(await errorCode(response)).toBe("request_header_fields_too_large");
    expect(lookups.count).toBe(0);
  });

  test("when the path is unknown, then the answer is 404 without a key and nothing is forwarded", async () => {
    const { handle } = setup();
    const response = await handle(request("GET", "/v1/unknown"));
    expect(response.status).toBe(404);
    expect(await errorCode(response)).toBe("not_found");
    expect(response.headers.get("x-request-id")).toBeTruthy();
    expect(received).toHaveLength(0);
  });

  test("when the path is known but the method is not, then the answer is 405 with Allow, before any key is asked for", async () => {
    const { handle } = setup();
    const response = await handle(request("PATCH", "/v1/new-page"));
    expect(response.status).toBe(405);
    expect(await errorCode(response)).toBe("method_not_allowed");
    expect(response.headers.get("allow")).toBe("GET, HEAD, POST");
  });

  test("when no key is sent to a known route, then the answer is 401 missing_token with the Bearer challenge", async () => {
    const { handle } = setup();
    const response = await handle(request("GET", "/v1/new-page"));
    expect(response.status).toBe(401);
    expect(await errorCode(response)).toBe("missing_token");
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="workspace-api"');
    expect(response.headers.get("x-ratelimit-limit")).toBeNull();
  });

  test("when an unknown key is sent, then the answer is 401 invalid_token and nothing is forwarded", async () => {
    const { handle } = setup();
    const response = await handle(request("GET", "/v1/new-page", { key: "key-unknown" }));
    expect(response.status).toBe(401);
    expect(await errorCode(response)).toBe("invalid_token");
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(received).toHaveLength(0);
  });

  test("when an address fails past its limit, then it gets 429 with Retry-After and no more look-ups, while a known key from it still passes", async () => {
    const { handle, lookups } = setup();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await handle(request("GET", "/v1/new-page", { key: `guess-${i}` }))).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect(lookups.count).toBe(3);
    const blocked = await handle(request("GET", "/v1/new-page", { key: "guess-x" }));
    expect(blocked.headers.get("retry-after")).toBe("58");
    const known = await handle(request("GET", "/v1/new-page", { key: "key-member" }));
    expect(known.status).toBe(200);
    const elsewhere = await handle(request("GET", "/v1/new-page", { key: "guess-y" }), "198.51.100.1");
    expect(elsewhere.status).toBe(401);
  });

  test("when the failure window ends on the clock, then the address may try again", async () => {
    const { handle, clock } = setup();
    for (let i = 0; i < 4; i++) await handle(request("GET", "/v1/new-page", { key: `guess-${i}` }));
    expect((await handle(request("GET", "/v1/new-page", { key: "guess" }))).status).toBe(429);
    clock.now += 60_000;
    expect((await handle(request("GET", "/v1/new-page", { key: "guess" }))).status).toBe(401);
  });

  test("when a key is past its rate limit, then it gets 429 with rate-limit headers even on a route it lacks the scope for", async () => {
    const { handle } = setup();
    const limited = (path: string, method = "GET") => handle(request(method, path, { key: "key-limited" }));
    expect((await limited("/v1/new-page")).status).toBe(200);
    const second = await limited("/v1/new-page");
    expect(second.status).toBe(200);
    expect(second.headers.get("x-ratelimit-limit")).toBe("2");
    expect(second.headers.get("x-ratelimit-remaining")).toBe("0");
    const third = await limited("/v1/new-page/some-id", "DELETE");
    expect(third.status).toBe(429);
    expect(await errorCode(third)).toBe("rate_limit_exceeded");
    expect(third.headers.get("retry-after")).toBe("58");
    expect(third.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(received).toHaveLength(2);
  });

  test("when a key sends past twice its limit, then it is suspended, and the next window on the clock does not lift the suspension early", async () => {
    const { handle, clock, observed } = setup();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await handle(request("GET", "/v1/new-page", { key: "key-limited" }))).status);
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
    const suspended = await handle(request("GET", "/v1/new-page", { key: "key-limited" }));
    expect(await errorCode(suspended)).toBe("key_suspended");
    expect(observed.at(-1)?.outcome).toBe("suspended");
    clock.now += 58_000;
    expect(await errorCode(await handle(request("GET", "/v1/new-page", { key: "key-limited" })))).toBe("key_suspended");
    clock.now += 3_000;
    expect((await handle(request("GET", "/v1/new-page", { key: "key-limited" }))).status).toBe(200);
  });

  test("when the key lacks the route's scope, then the answer is 403 insufficient_permissions with rate-limit headers", async () => {
    const { handle } = setup();
    const response = await handle(request("POST", "/v1/new-page", { key: "key-reader", body: "{}" }));
    expect(response.status).toBe(403);
    const body = (await response.json()) as { error: { code: string; details: Record<string, unknown> } };
    expect(body.error.code).toBe("insufficient_permissions");
    expect(body.error.details.required_scope).toBe("docs:create");
    expect(response.headers.get("x-ratelimit-limit")).toBe("100");
    expect(received).toHaveLength(0);
  });

  test("when the key has the scope but its creator's role does not, then the answer is 403 forbidden", async () => {
    const { handle } = setup();
    const response = await handle(request("POST", "/v1/new-page", { key: "key-guest", body: "{}" }));
    expect(response.status).toBe(403);
    expect(await errorCode(response)).toBe("forbidden");
  });

  test("when a body over the route's limit comes with a key lacking the scope, then the scope answers first (403, not 413)", async () => {
    const { handle } = setup();
    const response = await handle(request("POST", "/v1/new-page", { key: "key-reader", body: new Uint8Array(10 * MiB + 1) }));
    expect(response.status).toBe(403);
  });

  test("when a body is over the route's limit, then the answer is 413 and the service's answer is not used", async () => {
    const { handle } = setup();
    const response = await handle(request("POST", "/api/calendar/events", { key: "key-member", body: new Uint8Array(MiB + 1) }));
    expect(response.status).toBe(413);
    expect(await errorCode(response)).toBe("payload_too_large");
    expect(response.headers.get("x-ratelimit-limit")).toBe("100");
  });

  test("when a body fits the route's limit, then it is forwarded whole", async () => {
    const { handle } = setup();
    const response = await handle(request("POST", "/api/calendar/events", { key: "key-member", body: new Uint8Array(MiB) }));
    expect(response.status).toBe(201);
    expect(received[0]!.bodyBytes).toBe(MiB);
  });

  test("when the bodies in transit would pass the budget, then the answer is 503 with Retry-After; past one key's share, 429", async () => {
    const total = setup({ bodyBudget: createBodyBudget({ totalBytes: 1024 }) });
    const overTotal = await total.handle(request("POST", "/v1/new-page", { key: "key-member", body: new Uint8Array(2048) }));
    expect(overTotal.status).toBe(503);
    expect(await errorCode(overTotal)).toBe("service_unavailable");
    expect(overTotal.headers.get("retry-after")).toBe("1");
    expect(total.deps.bodyBudget.inUse()).toBe(0);

    const perKey = setup({ bodyBudget: createBodyBudget({ totalBytes: MiB, perKeyBytes: 1024 }) });
    const overShare = await perKey.handle(request("POST", "/v1/new-page", { key: "key-member", body: new Uint8Array(2048) }));
    expect(overShare.status).toBe(429);
    expect(((await overShare.json()) as { error: { details: { reason: string } } }).error.details.reason).toBe("request_bodies_in_transit");
  });
});

describe("what reaches the service", () => {
  test("when every check passes, then the service gets a signed principal bound to the method and path, and never the client's key", async () => {
    const { handle } = setup();
    const response = await handle(request("GET", "/v1/new-page?limit=5", { key: "key-member", headers: { "x-request-id": "req-123", "x-api-key": "other" } }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ served: true });
    expect(response.headers.get("x-from-service")).toBe("yes");
    expect(response.headers.get("x-request-id")).toBe("req-123");
    expect(response.headers.get("x-ratelimit-remaining")).toBe("99");

    expect(received).toHaveLength(1);
    const [{ method, path, headers }] = received as [Received];
    expect(method).toBe("GET");
    expect(path).toBe("/v1/new-page?limit=5");
    expect(headers.get("authorization")).toBeNull();
    expect(headers.get("x-api-key")).toBeNull();
    expect(headers.get("x-request-id")).toBe("req-123");
    const principal = await verifyPrincipal(headers.get(PRINCIPAL_HEADER), { method: "GET", path: "/v1/new-page" }, signingKey);
    expect(principal).toMatchObject({ workspace_id: "ws-1", member_id: "member-1", key_id: "key-member", request_id: "req-123", visible_team_ids: ["team-1"] });
    expect(principal.scopes).toEqual(["docs:read", "docs:create", "calendar:read", "calendar:create"]);
    await expect(verifyPrincipal(headers.get(PRINCIPAL_HEADER), { method: "DELETE", path: "/v1/new-page" }, signingKey)).rejects.toThrow();
  });

  test("when the client's Connection header names headers, or it sends a purge order, then none of those reaches the service", async () => {
    const { handle } = setup();
    const headers = { connection: "X-Hop-Only, keep-alive,x-other-hop", "x-hop-only": "1", "x-other-hop": "2", "x-kept": "3", "x-workspace-purge": "forged" };
    expect((await handle(request("GET", "/v1/new-page", { key: "key-member", headers }))).status).toBe(200);
    const forwarded = received[0]!.headers;
    expect(forwarded.get("x-hop-only")).toBeNull();
    expect(forwarded.get("x-other-hop")).toBeNull();
    expect(forwarded.get("x-workspace-purge")).toBeNull();
    expect(forwarded.get("x-kept")).toBe("3");
  });

  test("when a client gives up a long answer before its end, then the workspace's next requests tell the service how long ago, and an answer read to its end tells nothing", async () => {
    const { handle } = setup();
    const principalOfNext = async () => {
      received = [];
      upstreamMode = "answer";
      await (await handle(request("GET", "/v1/new-page", { key: "key-member" }))).arrayBuffer();
      return verifyPrincipal(received[0]!.headers.get(PRINCIPAL_HEADER), { method: "GET", path: "/v1/new-page" }, signingKey);
    };
    upstreamMode = "stream";
    const readWhole = await handle(request("GET", "/v1/new-page", { key: "key-member" }));
    expect((await readWhole.arrayBuffer()).byteLength).toBe(STREAMED_ANSWER_BYTES);
    expect((await principalOfNext()).answer_given_up_ms_ago).toBeUndefined();

    upstreamMode = "stream";
    const givenUp = await handle(request("GET", "/v1/new-page", { key: "key-member" }));
    const reader = givenUp.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    await Bun.sleep(50);
    const principal = await principalOfNext();
    expect(principal.answer_given_up_ms_ago).toBeGreaterThanOrEqual(50);
    expect(principal.answer_given_up_ms_ago).toBeLessThan(5_000);
  });

  test("when the service cannot be reached, then the answer is 503 with Retry-After and the kind is reported", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const deadUrl = `http://127.0.0.1:${closed.port}`;
    closed.stop(true);
    const kinds: string[] = [];
    const { handle, logs } = setup({ upstreams: { pages: deadUrl, calendar: deadUrl }, onUpstreamError: (service, kind) => void kinds.push(`${service}:${kind}`) });
    const response = await handle(request("GET", "/v1/new-page", { key: "key-member" }));
    expect(response.status).toBe(503);
    const text = await response.text();
    expect(JSON.parse(text).error.code).toBe("service_unavailable");
    expect(response.headers.get("retry-after")).toBe("1");
    expect(kinds).toEqual(["pages:unreachable"]);
    const line = logs.find((entry) => entry.message === "request")!;
    expect(line.fields?.status).toBe(503);
    // The fetch error says why; it is logged, and never sent to the client.
    const cause = line.fields?.cause;
    expect(typeof cause).toBe("string");
    expect(cause as string).toMatch(/connect|refused/i);
    expect(text).not.toContain(cause as string);
  });

  test("when the service does not answer in time, then the answer is 502 service_unavailable, its outcome unknown, with Retry-After only for a method safe to repeat", async () => {
    const kinds: string[] = [];
    const { handle, logs } = setup({ upstreamTimeoutMs: 100, onUpstreamError: (_service, kind) => void kinds.push(kind) });
    upstreamMode = "hang";
    const get = await handle(request("GET", "/v1/new-page", { key: "key-member" }));
    expect(get.status).toBe(502);
    expect(await errorCode(get)).toBe("service_unavailable");
    expect(get.headers.get("retry-after")).toBe("1");
    const post = await handle(request("POST", "/v1/new-page", { key: "key-member", body: "{}" }));
    expect(post.status).toBe(502);
    expect(post.headers.get("retry-after")).toBeNull();
    expect(kinds).toEqual(["timeout", "timeout"]);
    const causes = logs.filter((entry) => entry.message === "request").map((entry) => String(entry.fields?.cause));
    expect(causes).toHaveLength(2);
    for (const cause of causes) expect(cause).toContain("TimeoutError");
  });

  test("when the service stops half-way through a short answer, then the answer is 502 service_unavailable, its outcome unknown, within the timeout, not a cut body", async () => {
    // A service that sends its status, headers and part of a declared 100-byte body, then nothing more.
    const stalling = createServer((socket) => {
      socket.on("error", () => {});
      socket.once("data", () => socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"served"'));
    });
    await new Promise<void>((resolve) => stalling.listen(0, "127.0.0.1", resolve));
    try {
      const kinds: string[] = [];
      const { port } = stalling.address() as { port: number };
      const { handle } = setup({ upstreamTimeoutMs: 200, upstreams: { pages: `http://127.0.0.1:${port}`, calendar: upstreamUrl }, onUpstreamError: (_service, kind) => void kinds.push(kind) });
      const started = performance.now();
      const answer = await handle(request("GET", "/v1/new-page", { key: "key-member" }));
      expect(answer.status).toBe(502);
      expect(await errorCode(answer)).toBe("service_unavailable");
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(kinds).toEqual(["timeout"]);
    } finally {
      stalling.close();
    }
  });
});

describe("failures, logging and metrics", () => {
  test("when the key store's database is unreachable, then the answer is 503 not executed, not 500", async () => {
    const down = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const { handle, deps, logs } = setup();
    deps.authenticator.authenticate = async () => {
      throw down;
    };
    const response = await handle(request("GET", "/v1/new-page", { key: "key-member" }));
    expect(response.status).toBe(503);
    expect(await errorCode(response)).toBe("service_unavailable");
    expect(logs.find((entry) => entry.message === "request")?.fields?.cause).toBe("Error: connect ECONNREFUSED");
  });

  test("when something unexpected throws, then the answer is the 500 error object and the stack is logged once", async () => {
    const { handle, deps, logs } = setup();
    deps.authenticator.authenticate = async () => {
      throw new TypeError("boom");
    };
    const response = await handle(request("GET", "/v1/new-page", { key: "key-member" }));
    expect(response.status).toBe(500);
    expect(await errorCode(response)).toBe("internal_error");
    const errors = logs.filter((line) => line.level === "error");
    expect(errors).toHaveLength(1);
    expect(String(errors[0]!.fields?.error)).toContain("TypeError: boom");
  });

  test("when a request is answered, then one request line and one observation name the operation, status and rate-limit outcome", async () => {
    const { handle, logs, observed } = setup();
    await handle(request("GET", "/v1/new-page", { key: "key-member", headers: { "x-request-id": "req-9" } }));
    await handle(request("GET", "/v1/unknown"));
    expect(observed.map(({ route, method, status, outcome }) => ({ route, method, status, outcome }))).toEqual([
      { route: "listPages", method: "GET", status: 200, outcome: "allowed" },
      { route: "unmatched", method: "GET", status: 404, outcome: undefined },
    ]);
    const lines = logs.filter((line) => line.message === "request");
    expect(lines).toHaveLength(2);
    expect(lines[0]!.fields).toMatchObject({ request_id: "req-9", key_id: "key-member", route: "listPages", status: 200 });
    for (const line of lines) expect(line.fields).not.toHaveProperty("cause");
  });

  test("when an ApiError is thrown by a dependency, then it is the answer as it is", async () => {
    const { handle, deps } = setup();
    deps.authenticator.authenticate = async () => {
      throw new ApiError("key_suspended", "Suspended.");
    };
    const response = await handle(request("GET", "/v1/new-page", { key: "key-member" }));
    expect(response.status).toBe(429);
    expect(await errorCode(response)).toBe("key_suspended");
  });
});

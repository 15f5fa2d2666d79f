import { beforeAll, describe, expect, test } from "bun:test";
import { MAX_REQUEST_HEADER_BYTES, MAX_REQUEST_HEADER_COUNT } from "@ws/shared";
import { expectError } from "../../harness/assertions";
import { apiClient, readResponse, type Call } from "../../harness/http";
import { portOf, rawConnection, rawExchange } from "../../harness/raw-http";
import { sharedSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";

let system: TestSystem;
let key: string;
let call: Call;
beforeAll(async () => {
  system = await sharedSystem();
  key = await (await seedTenant(system)).key();
  call = apiClient(system.baseUrl, key);
});

const remaining = async () => Number((await call("GET", "/v1/new-page?per_page=1")).headers.get("x-ratelimit-remaining"));

describe("header limits: the gateway and the services agree", () => {
  // 16 to 32 KiB used to pass the gateway and meet the service's own 16 KiB limit: an empty-bodied 431.
  for (const size of [12 * 1024, 20 * 1024, MAX_REQUEST_HEADER_BYTES - 1024]) {
    test(`when the headers total ${Math.round(size / 1024)} KiB, under the gateway's limit, then the service answers normally`, async () => {
      const response = await call("GET", "/v1/new-page?per_page=1", undefined, { "x-padding": "a".repeat(size) });
      expect(response.status).toBe(200);
      expect(Array.isArray(response.body.data)).toBe(true);
    });
  }

  test("when the headers are over the gateway's limit, then the gateway answers 431 with the error object and the key is not charged", async () => {
    const before = await remaining();
    for (const size of [MAX_REQUEST_HEADER_BYTES + 1024, 48 * 1024]) {
      const response = await readResponse(
        await fetch(`${system.baseUrl}/v1/new-page`, { headers: { authorization: `Bearer ${key}`, "x-padding": "a".repeat(size) } }),
      );
      expectError(response, 431, "request_header_fields_too_large");
      expect(response.headers.get("x-ratelimit-limit")).toBeNull();
    }
    // One request (the read below) is charged, not three.
    expect(await remaining()).toBe(before - 1);
  });

  test("when a request has more header fields than the gateway takes, then it is 431 with the error object", async () => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    for (let i = 0; i < MAX_REQUEST_HEADER_COUNT + 5; i++) headers[`x-field-${i}`] = "v";
    expectError(await readResponse(await fetch(`${system.baseUrl}/v1/new-page`, { headers })), 431, "request_header_fields_too_large");
  });

  test("when one header name is repeated past the gateway's number of fields, then it is 431 with the error object, as for distinct names", async () => {
    const lines = Array.from({ length: MAX_REQUEST_HEADER_COUNT + 5 }, () => "X-Repeated: a\r\n").join("");
    const [answer] = await rawExchange(portOf(system.baseUrl), `GET /v1/new-page HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n${lines}Connection: close\r\n\r\n`, 1);
    expectError(answer!, 431, "request_header_fields_too_large");
  });
});

describe("pipelined HTTP/1.1 requests", () => {
  const head = (method: string, path: string, extra = "") => `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n${extra}`;

  test("when two requests are pipelined on one connection, then each is answered, in order, and the first runs once", async () => {
    const title = `pipelined ${crypto.randomUUID()}`;
    const body = JSON.stringify({ title });
    const bytes =
      head("POST", "/v1/new-page", `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`) +
      head("GET", `/v1/new-page?title=${encodeURIComponent(title)}`, "\r\n");
    const responses = await rawExchange(portOf(system.baseUrl), bytes, 2);
    expect(responses.map((response) => response.status)).toEqual([201, 200]);
    expect(responses[0]!.body.title).toBe(title);
    expect(responses[1]!.body.data.map((page: { id: string }) => page.id)).toEqual([responses[0]!.body.id]);
    const listed = await call("GET", `/v1/new-page?title=${encodeURIComponent(title)}`);
    expect(listed.body.total).toBe(1);
  });

  test("when five requests of several kinds are pipelined, then five answers come back in the order asked", async () => {
    const paths = ["/v1/new-page?per_page=1", "/nowhere", "/api/calendar/calendars", "/v1/new-page/not-an-id", "/healthz"];
    const bytes = paths.map((path) => head("GET", path, "\r\n")).join("");
    const responses = await rawExchange(portOf(system.baseUrl), bytes, paths.length);
    expect(responses.map((response) => response.status)).toEqual([200, 404, 200, 404, 200]);
  });

  // The server may close a connection whose body it did not want (Deno does), but never leave the next request hanging.
  test("when a request answered before its body was read is followed by another on the connection, then that one is answered or the connection closed", async () => {
    const connection = rawConnection(portOf(system.baseUrl));
    try {
      const tooLarge = 10 * 1024 * 1024 + 1;
      await connection.write(head("POST", "/v1/new-page", `Content-Type: application/json\r\nContent-Length: ${tooLarge}\r\n\r\n`));
      const [refused] = await connection.responses(1);
      expectError(refused!, 413, "payload_too_large");
      // The client sends the body it announced anyway; the server reads past it to the next request.
      const chunk = Buffer.alloc(64 * 1024, "x");
      for (let sent = 0; sent < tooLarge; sent += chunk.length) await connection.write(chunk.subarray(0, Math.min(chunk.length, tooLarge - sent)));
      await connection.write(head("GET", "/v1/new-page?per_page=1", "\r\n"));
      const started = Date.now();
      const responses = await connection.responses(2, 10_000);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(responses.map((response) => response.status)).toEqual(responses.length === 2 ? [413, 200] : [413]);
    } finally {
      connection.close();
    }
  });
});

describe("a Host header shorter than the routes expect", () => {
  test("when Host is one or three characters, then health, the API document, the management API and the API answer as for any host", async () => {
    for (const host of ["a", "a.b"]) {
      const exchange = async (url: string, request: string) => (await rawExchange(portOf(url), request.replace("{host}", host), 1))[0]!;
      expect((await exchange(system.baseUrl, "GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")).status).toBe(200);
      expect((await exchange(system.baseUrl, "GET /openapi.json HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")).body.openapi).toBe("3.1.0");
      expect((await exchange(system.adminUrl, "GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")).status).toBe(200);
      const workspaces = await exchange(system.adminUrl, `GET /admin/v1/workspaces HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer ${system.adminToken}\r\nConnection: close\r\n\r\n`);
      expect(workspaces.status).toBe(200);
      expect(Array.isArray(workspaces.body.data)).toBe(true);
      const page = JSON.stringify({ title: `short host ${host}` });
      const created = await exchange(
        system.baseUrl,
        `POST /v1/new-page HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${page.length}\r\nConnection: close\r\n\r\n${page}`,
      );
      expect(created.status).toBe(201);
    }
  });
});

describe("request targets a proxy in front could read as another path", () => {
  const get = async (target: string) =>
    (await rawExchange(portOf(system.baseUrl), `GET ${target} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`, 1))[0]!;

  test("when a target starts with two slashes, then it is that path, not found, never /v1/new-page of a host named in it", async () => {
    for (const target of ["//evil/v1/new-page", "//localhost/v1/new-page?per_page=1"]) expectError(await get(target), 404, "not_found");
  });

  test("when a target's path holds a backslash or the target a fragment, then it is refused with the error object, never served", async () => {
    for (const target of ["/v1\\new-page", "\\\\x/v1/new-page", "/v1/new-page#x"]) {
      const answer = await get(target);
      expect({ target, status: answer.status }).toEqual({ target, status: 400 });
      expectError(answer, 400, "bad_request");
    }
  });
});

describe("chunked request bodies: trailers", () => {
  test("when a trailer line ends in a bare LF and hides a second request, then the first is refused with 400 and the hidden one never runs", async () => {
    const created = await call("POST", "/v1/new-page", { title: `trailer target ${crypto.randomUUID()}` });
    const body = JSON.stringify({ title: "smuggler" });
    const bytes =
      `POST /v1/new-page HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n` +
      `${body.length.toString(16)}\r\n${body}\r\n0\r\nX: a\n\nDELETE /v1/new-page/${created.body.id} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n\r\n`;
    const answers = await rawExchange(portOf(system.baseUrl), bytes, 2, 5_000);
    expectError(answers[0]!, 400, "bad_request");
    expect(answers.map((answer) => answer.status).filter((status) => status !== 400)).toEqual([]);
    expect((await call("GET", `/v1/new-page/${created.body.id}`)).status).toBe(200);
  });
});

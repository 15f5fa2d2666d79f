import { beforeAll, describe, expect, test } from "bun:test";
import { createConnection } from "node:net";
import { expectError } from "../../harness/assertions";
import { isErrorObject, readResponse } from "../../harness/http";
import { sharedSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";

let system: TestSystem;
let key: string;
beforeAll(async () => {
  system = await sharedSystem();
  key = await (await seedTenant(system)).key();
});

function dechunk(chunked: string): string {
  let body = "";
  for (let at = 0; ; ) {
    const lineEnd = chunked.indexOf("\r\n", at);
    const size = parseInt(chunked.slice(at, lineEnd), 16);
    if (!size) return body;
    body += chunked.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

/** Sends raw bytes, for requests fetch() refuses to make. */
function raw(port: number, request: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    let data = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => (data = Buffer.concat([data, chunk])));
    socket.on("end", () => {
      const text = data.toString("latin1");
      const head = text.slice(0, text.indexOf("\r\n\r\n"));
      let body = text.slice(head.length + 4);
      if (/^transfer-encoding:\s*chunked/im.test(head)) body = dechunk(body);
      resolve({ status: Number(text.slice(9, 12)), body });
    });
    socket.on("error", reject);
    socket.write(request);
  });
}

describe("nothing a client can send produces a 500", () => {
  const post = async (path: string, body: BodyInit, contentType?: string) =>
    readResponse(
      await fetch(system.baseUrl + path, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, ...(contentType ? { "content-type": contentType } : {}) },
        body,
      }),
    );

  for (const path of ["/v1/new-page", "/api/calendar/events/"]) {
    test(`when ${path} gets malformed JSON, then it is 400 bad_request`, async () => {
      expectError(await post(path, "{\"title\": ", "application/json"), 400, "bad_request");
    });
    test(`when ${path} gets JSON that is not an object, then it is 400 bad_request`, async () => {
      expectError(await post(path, "[1,2]", "application/json"), 400, "bad_request");
      expectError(await post(path, "null", "application/json"), 400, "bad_request");
    });
    test(`when ${path} gets a body without Content-Type: application/json, then it is 400 bad_request`, async () => {
      expectError(await post(path, '{"title":"x"}', "text/plain"), 400, "bad_request");
      expectError(await post(path, '{"title":"x"}'), 400, "bad_request");
    });
    test(`when ${path} gets bytes that are not UTF-8, then it is 400 bad_request`, async () => {
      expectError(await post(path, new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), "application/json"), 400, "bad_request");
    });
  }

  test("when a field is an object with its own toString or valueOf, then it is the service's validation error, not a 500", async () => {
    const cases = [
      ["/v1/new-page", 422, "validation_error", '{"title":{"toString":0}}'],
      ["/v1/new-page", 422, "validation_error", '{"title":"x","content":{"valueOf":{},"toString":[]}}'],
      ["/api/calendar/events/", 400, "bad_request", '{"calendar_id":{"toString":0},"starts_at":"2026-01-01T00:00:00Z","ends_at":"2026-01-01T01:00:00Z"}'],
    ] as const;
    for (const [path, status, code, body] of cases) expectError(await post(path, body, "application/json"), status, code);
    const created = await post("/v1/new-page", '{"title":"x"}', "application/json");
    const update = await fetch(`${system.baseUrl}/v1/new-page/${(created.body as { id: string }).id}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: '{"title":{"toString":0}}',
    });
    expectError(await readResponse(update), 422, "validation_error");
  });

  // Past the runtime's own parser limit (1 MiB as Bun is started, about 64 KiB in Deno) the runtime answers by itself.
  test("when the headers are huge, then it is 431 with the error object", async () => {
    const response = await fetch(`${system.baseUrl}/v1/new-page`, { headers: { authorization: `Bearer ${key}`, "x-padding": "a".repeat(40_000) } });
    expectError(await readResponse(response), 431, "request_header_fields_too_large");
  });

  test("when a body is larger than the route allows, then it is 413 payload_too_large", async () => {
    const response = await post("/api/calendar/events", JSON.stringify({ notes: "x".repeat(2 * 1024 * 1024) }), "application/json");
    expectError(response, 413, "payload_too_large");
  });

  test("when a header holds bytes that are not UTF-8, then it is an error object, not a 500", async () => {
    const port = Number(new URL(system.baseUrl).port);
    const response = await raw(port, Buffer.concat([Buffer.from("GET /v1/new-page HTTP/1.1\r\nHost: x\r\nX-API-Key: "), Buffer.from([0xff, 0xfe]), Buffer.from("\r\nConnection: close\r\n\r\n")]));
    expect(response.status).toBe(401);
    expect(isErrorObject(JSON.parse(response.body))).toBe(true);
  });

  test("when the path has invalid percent-encoding, then it is 404 not_found, never a 500 or a 4xx about the id", async () => {
    const port = Number(new URL(system.baseUrl).port);
    for (const [path, status] of [["/v1/new-page/%ff%fe", 404], ["/%zz", 404], ["/v1/new-page/%00", 404], ["/v1/new-page/%E0%A4%A", 404]] as const) {
      const response = await raw(port, Buffer.from(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`));
      expect({ path, status: response.status }).toEqual({ path, status });
      expectError({ status: response.status, body: JSON.parse(response.body) }, 404, "not_found");
    }
  });
});

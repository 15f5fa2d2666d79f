import fc from "fast-check";
import { isErrorObject } from "./http";
import { rawExchange, type RawResponse } from "./raw-http";

/**
 * Property-based fuzzing over raw HTTP/1.1: any method token, request target,
 * header and body can be sent, including what fetch() refuses to send.
 *
 * Left out on purpose, because the runtime's HTTP parser answers them before
 * any of our code runs (Deno's hyper with an empty 400): framing headers
 * (Content-Length is always right, no Transfer-Encoding), control characters
 * and raw non-ASCII in the request target, CONNECT with a path, the asterisk
 * target with any method but OPTIONS, and header
 * blocks past the parsers' own limits. The gateway's own header limits are
 * fuzzed (tests/e2e/security/protocol-edges.e2e.test.ts tests them exactly).
 */

/** One seed per run, printed when a property fails; FUZZ_SEED replays a run. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
export const fuzzRuns = (fallback: number) => Number(process.env.FUZZ_RUNS ?? fallback);

export async function assertFuzzed<T>(name: string, property: fc.IAsyncProperty<T>, numRuns: number): Promise<void> {
  try {
    await fc.assert(property, { seed: FUZZ_SEED, numRuns, endOnFailure: true });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `\n${error.cause.message}` : "";
    const message = (error instanceof Error ? error.message : String(error)) + cause;
    throw new Error(`${name}: failed with FUZZ_SEED=${FUZZ_SEED} (replay: FUZZ_SEED=${FUZZ_SEED} bun test <this file>)\n${message}`);
  }
}

export interface FuzzRequest {
  method: string;
  target: string;
  headers: [string, string][];
  body?: Uint8Array;
}

/** The request as bytes, one per connection, framed by a correct Content-Length. */
export function rawRequest(request: FuzzRequest): Buffer {
  const lines = [`${request.method} ${request.target} HTTP/1.1`, "Host: localhost", "Connection: close"];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (request.body) lines.push(`Content-Length: ${request.body.byteLength}`);
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), Buffer.from(request.body ?? new Uint8Array(0))]);
}

export async function send(port: number, request: FuzzRequest): Promise<RawResponse | undefined> {
  const [response] = await rawExchange(port, rawRequest(request), 1, 10_000, request.method === "HEAD");
  return response;
}

/**
 * Why an answer is not acceptable, or null: no answer, a 5xx, a 4xx that is not
 * the error object (sent as JSON), a status the API never uses, or a success
 * `success` does not accept.
 */
export function verdict(request: FuzzRequest, response: RawResponse | undefined, success: (response: RawResponse) => string | null): string | null {
  if (!response) return "no answer (connection closed or timed out)";
  if (response.status >= 500) return `status ${response.status}: ${response.text.slice(0, 300)}`;
  if (response.status >= 400) {
    if (!/^application\/json/i.test(response.headers["content-type"] ?? "")) return `${response.status} without a JSON content type`;
    if (request.method !== "HEAD" && !isErrorObject(response.body)) return `${response.status} whose body is not the error object: ${response.text.slice(0, 300)}`;
    return null;
  }
  if (response.status < 200 || response.status >= 300) return `unexpected status ${response.status}`;
  return success(response);
}

/**
 * Percent-encoding that, unlike encodeURIComponent, also takes lone surrogates:
 * they become the three bytes a lenient UTF-8 encoder would write (%ED%A0%80),
 * which no valid UTF-8 decoder accepts — an input worth sending.
 */
export function percentEncode(text: string): string {
  let out = "";
  for (const character of text) {
    const code = character.codePointAt(0)!;
    if (/^[A-Za-z0-9\-_.!~*'()]$/.test(character)) {
      out += character;
      continue;
    }
    const bytes =
      code < 0x80 ? [code]
      : code < 0x800 ? [0xc0 | (code >> 6), 0x80 | (code & 63)]
      : code < 0x10000 ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63)]
      : [0xf0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63)];
    out += bytes.map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("");
  }
  return out;
}

/** Methods: the usual, the registered odd ones, and tokens no server knows. */
export const METHOD = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE") },
  { weight: 2, arbitrary: fc.constantFrom("HEAD", "OPTIONS", "TRACE", "PROPFIND", "M-SEARCH", "PURGE", "QUERY", "LOCK", "MKCOL", "SEARCH") },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Z][A-Z0-9_-]{0,11}$/) },
  { weight: 1, arbitrary: fc.constantFrom("get", "Post", "BREW", "FOO_BAR", "X!", "~") },
);

/** A CONNECT request: its target is an authority, never a path. */
export const CONNECT_TARGET = fc.oneof(
  fc.constantFrom("localhost:443", "example.com:80", "[::1]:8080", "foo", "a:99999", ":80"),
  fc.tuple(fc.domain(), fc.integer({ min: 0, max: 70_000 })).map(([host, port]) => `${host}:${port}`),
);

const UNICODE_TRAPS = ["\u0000", "\ud800", "\udfff", "a\ud83e", "🦄", "\u202e", "\ufeff", "é"];
export const INTERESTING_STRING = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...UNICODE_TRAPS, "a", " ", "%", "_", "\\", '"'), maxLength: 20 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "\t\n",
      "null",
      "true",
      "-0",
      "1e309",
      "x".repeat(256),
      "x".repeat(5000),
      "'; drop table pages; --",
      "<script>alert(1)</script>",
      "../../etc/passwd",
      "%00",
      "%zz",
      "2026-03-02T10:00:00Z",
      "2026-03-02T10:00:00+23:59",
      "9999-12-31T23:59:59-23:59",
      "+275760-09-13T00:00:00Z",
      "0000-01-01T00:00:00Z",
      "2026-02-30T10:00:00Z",
      "https://meet.example.com/x",
      "javascript:alert(1)",
      "ada@example.com",
      "not-an-email@",
      "00000000-0000-0000-0000-000000000000",
      "urn:uuid:00000000-0000-0000-0000-000000000000",
    ),
  },
  { weight: 1, arbitrary: fc.uuid() },
);

export const INTERESTING_NUMBER = fc.oneof(
  fc.integer({ min: -5, max: 20_000 }),
  fc.constantFrom(0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, 10_080, 10_081, 1_000_001, Number.MIN_VALUE),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Values for any field: the interesting ones, and whole JSON values. */
export function fieldValue(extra: fc.Arbitrary<unknown>[] = []): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 5, arbitrary: INTERESTING_STRING },
    { weight: 2, arbitrary: INTERESTING_NUMBER },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, { toString: 0 }, { valueOf: {} }, [null], ["a"], { a: { b: [1] } }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    ...extra.map((arbitrary) => ({ weight: 3, arbitrary })),
  );
}

/** An object with some of the operation's fields (and a stranger), each with any value. */
export function objectBody(fields: string[], values: Record<string, fc.Arbitrary<unknown>> = {}): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of fields) model[field] = values[field] ? fc.oneof({ weight: 3, arbitrary: values[field] }, { weight: 2, arbitrary: fieldValue() }) : fieldValue();
  model.unexpected_field = fieldValue();
  return fc.record(model, { requiredKeys: [] });
}

const encoder = new TextEncoder();

/**
 * A body: mostly JSON (an object of the operation's fields, or any JSON value),
 * sometimes text that is not JSON, bytes that are not UTF-8, or nothing.
 */
export function bodyBytes(object: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Uint8Array | undefined> {
  return fc.oneof(
    { weight: 8, arbitrary: object.map((value) => encoder.encode(JSON.stringify(value))) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => encoder.encode(JSON.stringify(value) ?? "null")) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((text) => encoder.encode(text)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 60 }) },
    { weight: 1, arbitrary: fc.constantFrom('{"title":"x"', '{"a":1}{"b":2}', "[]", "null", '"\\ud800"', '{"__proto__":{"polluted":1}}', '{"title":"\\u0000"}').map((text) => encoder.encode(text)) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const TOKEN = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/);
const FRAMING = /^(content-length|transfer-encoding|connection|host|expect|upgrade|te|trailer|keep-alive|http2-settings)$/i;
const HEADER_VALUE = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,60}[\x21-\x7e])?$/) },
  { weight: 1, arbitrary: fc.constantFrom("", "\u00ff\u00fe", "é", "a\tb", "x".repeat(2000)) },
);

/** Headers: the ones that change what the API does, with any value, and strangers. */
export function headerList(credentials: string[]): fc.Arbitrary<[string, string][]> {
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant("application/json") },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        "application/json; charset=utf-8",
        "APPLICATION/JSON",
        "application/json; charset=utf-16",
        "application/jsonp",
        "text/plain",
        "multipart/form-data; boundary=x",
        "application/x-www-form-urlencoded",
        "",
      ),
    },
  );
  const authorization = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...credentials).map((key) => ["Authorization", `Bearer ${key}`] as [string, string]) },
    { weight: 1, arbitrary: fc.constantFrom(...credentials).map((key) => ["X-API-Key", key] as [string, string]) },
    { weight: 1, arbitrary: fc.constantFrom("Basic YTpi", "Bearer", "Bearer ", "bearer wsk_x", "Bearer wsk_" + "a".repeat(300), "Token x").map((value) => ["Authorization", value] as [string, string]) },
    { weight: 1, arbitrary: fc.constant(["X-No-Credentials", "1"] as [string, string]) },
  );
  const special = fc.oneof(
    fc.tuple(fc.constant("X-Request-Id"), fc.oneof(HEADER_VALUE, fc.constantFrom("a".repeat(200), "../x", "id with spaces"))),
    fc.tuple(fc.constant("X-Forwarded-For"), fc.constantFrom("1.2.3.4", "garbage", "::1, 10.0.0.1", "")),
    fc.tuple(fc.constant("Accept"), fc.constantFrom("*/*", "text/html", "application/xml", "")),
    fc.tuple(fc.constant("Accept-Encoding"), fc.constantFrom("gzip", "br", "identity;q=0", "*")),
    fc.tuple(fc.constant("X-Workspace-Principal"), fc.constantFrom("forged", "eyJhbGciOiJub25lIn0.e30.")),
    fc.tuple(fc.constant("Cookie"), HEADER_VALUE),
  );
  const stranger = fc.tuple(TOKEN.filter((name) => !FRAMING.test(name)), HEADER_VALUE);
  return fc
    .tuple(
      authorization,
      fc.option(contentType, { freq: 8 }),
      fc.array(special, { maxLength: 3 }),
      fc.array(stranger, { maxLength: 5 }),
    )
    .map(([auth, type, specials, strangers]) => [auth, ...(type === null ? [] : [["Content-Type", type] as [string, string]]), ...specials, ...strangers]);
}

/** A query string built from the operation's parameters and strangers, with any values, sometimes badly encoded. */
export function queryString(parameters: string[]): fc.Arbitrary<string> {
  const name = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...parameters, "page", "per_page") }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) });
  const value = fc.oneof(
    { weight: 4, arbitrary: fieldValue().map((raw) => (typeof raw === "string" ? raw : JSON.stringify(raw) ?? "")) },
    { weight: 1, arbitrary: fc.constantFrom("1", "100", "101", "0", "-1", "1.5", "99999999999999999999", "abc", "asc", "desc", "title", "created_at") },
  );
  const pair = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(name, value).map(([key, raw]) => `${percentEncode(key)}=${percentEncode(raw)}`) },
    { weight: 1, arbitrary: fc.tuple(name, fc.constantFrom("%zz", "%", "%E0%A4%A", "%00", "%FF%FE", "")).map(([key, raw]) => `${percentEncode(key)}=${raw}`) },
    { weight: 1, arbitrary: fc.tuple(name, value).map(([key, raw]) => `${percentEncode(key)}[]=${percentEncode(raw)}`) },
    { weight: 1, arbitrary: name.map((key) => percentEncode(key)) },
  );
  return fc.array(pair, { maxLength: 5 }).map((pairs) => (pairs.length ? `?${pairs.join("&")}` : ""));
}

/** A path segment where an id goes: real ids, malformed ones, and traps. */
export function idSegment(known: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: INTERESTING_STRING.map((text) => percentEncode(text) || "x") },
    { weight: 1, arbitrary: fc.constantFrom("%zz", "%", "..", ".", "%2F", "%00", "%FF%FE", "a%20b", "x".repeat(300), known[0]!.toUpperCase()) },
  );
}

/** Variants of a path: as is, trailing slash, doubled slashes, case changed, extra segments. */
export function pathVariant(path: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 14, arbitrary: fc.constant(path) },
    { weight: 2, arbitrary: fc.constant(`${path}/`) },
    { weight: 1, arbitrary: fc.constant(path.replace(/\//g, "//")) },
    { weight: 1, arbitrary: fc.constant(path.toUpperCase()) },
    { weight: 1, arbitrary: fc.constant(`${path}/extra/segments`) },
    { weight: 1, arbitrary: fc.constant(`/.${path}`) },
    { weight: 1, arbitrary: fc.constant(path.replace(/\/[^/]*$/, "/%2e%2e")) },
  );
}

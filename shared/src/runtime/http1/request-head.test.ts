import { describe, expect, test } from "bun:test";
import { isRefusal, parseRequestHead, targetUrl, type RequestHead } from "./request-head";

const head = (...lines: string[]) => parseRequestHead(lines.join("\r\n"));
const parsed = (...lines: string[]): RequestHead => {
  const result = head(...lines);
  if (isRefusal(result)) throw new Error(`refused: ${result.refused}`);
  return result;
};
const refusal = (...lines: string[]): string => {
  const result = head(...lines);
  if (!isRefusal(result)) throw new Error("accepted");
  return result.refused;
};

describe("reading a request head", () => {
  test("when a request is well formed, then its method, target, version and headers come out as sent, values trimmed", () => {
    const result = parsed("POST /v1/new-page?x=1 HTTP/1.1", "Host: api.example.com", "X-Thing: \t spaced out \t", "Content-Length: 12");
    expect(result).toEqual({
      method: "POST",
      target: "/v1/new-page?x=1",
      minorVersion: 1,
      rawHeaders: ["Host", "api.example.com", "X-Thing", "spaced out", "Content-Length", "12"],
      host: "api.example.com",
      framing: { kind: "length", length: 12 },
      keepAlive: true,
      expectsContinue: false,
    });
  });

  test("when a header value holds bytes past ASCII (obs-text), then it is kept as those bytes", () => {
    expect(parsed("GET / HTTP/1.1", "Host: x", "X-API-Key: \xff\xfe").rawHeaders).toEqual(["Host", "x", "X-API-Key", "\xff\xfe"]);
  });

  test("when Content-Length is repeated with one value, then it is that length; a zero length means no body", () => {
    expect(parsed("PUT / HTTP/1.1", "Host: x", "Content-Length: 5", "Content-Length: 5").framing).toEqual({ kind: "length", length: 5 });
    expect(parsed("PUT / HTTP/1.1", "Host: x", "Content-Length: 5, 5").framing).toEqual({ kind: "length", length: 5 });
    expect(parsed("PUT / HTTP/1.1", "Host: x", "Content-Length: 0").framing).toEqual({ kind: "none" });
  });

  test("when Transfer-Encoding is chunked, in any case, then the body is chunked", () => {
    expect(parsed("POST / HTTP/1.1", "Host: x", "Transfer-Encoding: Chunked").framing).toEqual({ kind: "chunked" });
  });

  test("when the framing could be read two ways, then the head is refused", () => {
    expect(refusal("POST / HTTP/1.1", "Host: x", "Content-Length: 5", "Transfer-Encoding: chunked")).toContain("both");
    expect(refusal("POST / HTTP/1.1", "Host: x", "Content-Length: 5", "Content-Length: 6")).toContain("Content-Length");
    expect(refusal("POST / HTTP/1.1", "Host: x", "Content-Length: +5")).toContain("Content-Length");
    expect(refusal("POST / HTTP/1.1", "Host: x", "Content-Length: 0x10")).toContain("Content-Length");
    expect(refusal("POST / HTTP/1.1", "Host: x", "Content-Length: 99999999999999999")).toContain("Content-Length");
    expect(refusal("POST / HTTP/1.1", "Host: x", "Transfer-Encoding: gzip, chunked")).toContain("chunked");
    expect(refusal("POST / HTTP/1.1", "Host: x", "Transfer-Encoding: chunked", "Transfer-Encoding: chunked")).toContain("chunked");
    expect(refusal("POST / HTTP/1.0", "Transfer-Encoding: chunked")).toContain("HTTP/1.0");
  });

  test("when a header line is folded, has space before its colon, no colon, or a control character, then the head is refused", () => {
    expect(refusal("GET / HTTP/1.1", "Host: x", "X-A: 1", " continued")).toContain("name");
    expect(refusal("GET / HTTP/1.1", "Host: x", "Content-Length : 5")).toContain("name");
    expect(refusal("GET / HTTP/1.1", "Host: x", "no colon here")).toContain("colon");
    expect(refusal("GET / HTTP/1.1", "Host: x", "X-A: a\rb")).toContain("control");
    expect(refusal("GET / HTTP/1.1", "Host: x", "X-A: a\nb")).toContain("control");
    expect(refusal("GET / HTTP/1.1", "Host: x", "X-A: a\x00b")).toContain("control");
  });

  test("when the request line is not three parts with a token method, a visible target and HTTP/1.x, then the head is refused", () => {
    expect(refusal("GET  / HTTP/1.1", "Host: x")).toContain("request line");
    expect(refusal("GET / HTTP/1.1 extra", "Host: x")).toContain("request line");
    expect(refusal("G(T / HTTP/1.1", "Host: x")).toContain("method");
    expect(refusal("GET /caf\xe9 HTTP/1.1", "Host: x")).toContain("target");
    expect(refusal("GET / HTTP/2.0", "Host: x")).toContain("HTTP/1.1");
    expect(refusal("GET / http/1.1", "Host: x")).toContain("HTTP/1.1");
  });

  test("when a target's path holds a backslash, or the target a fragment, then the head is refused: URL parsers would read another path", () => {
    expect(refusal("GET /v1\\new-page HTTP/1.1", "Host: x")).toContain("backslash");
    expect(refusal("GET \\\\x/v1/new-page HTTP/1.1", "Host: x")).toContain("backslash");
    expect(refusal("GET /v1/new-page#x HTTP/1.1", "Host: x")).toContain("fragment");
    expect(parsed("GET /v1/new-page?title=a\\b HTTP/1.1", "Host: x").target).toBe("/v1/new-page?title=a\\b");
  });

  test("when an HTTP/1.1 request has no Host, two Hosts or a Host that is no host, then the head is refused", () => {
    expect(refusal("GET / HTTP/1.1", "X-A: 1")).toContain("Host");
    expect(refusal("GET / HTTP/1.1", "Host: a", "Host: b")).toContain("Host");
    expect(refusal("GET / HTTP/1.1", "Host: a b")).toContain("Host");
    expect(refusal("GET / HTTP/1.1", "Host: [::1")).toContain("Host");
    expect(parsed("GET / HTTP/1.0").host).toBeUndefined();
    expect(parsed("GET / HTTP/1.1", "Host: [::1]:8080").host).toBe("[::1]:8080");
    expect(parsed("GET / HTTP/1.1", "Host:").host).toBe("");
  });

  test("when the client says how the connection goes, then keep-alive follows HTTP/1.1 and HTTP/1.0 rules", () => {
    expect(parsed("GET / HTTP/1.1", "Host: x").keepAlive).toBe(true);
    expect(parsed("GET / HTTP/1.1", "Host: x", "Connection: Close").keepAlive).toBe(false);
    expect(parsed("GET / HTTP/1.1", "Host: x", "Connection: upgrade, close").keepAlive).toBe(false);
    expect(parsed("GET / HTTP/1.0").keepAlive).toBe(false);
    expect(parsed("GET / HTTP/1.0", "Connection: keep-alive").keepAlive).toBe(true);
  });

  test("when an HTTP/1.1 client expects 100-continue, then that is noted; any other expectation is ignored", () => {
    expect(parsed("PUT / HTTP/1.1", "Host: x", "Expect: 100-Continue", "Content-Length: 3").expectsContinue).toBe(true);
    expect(parsed("PUT / HTTP/1.1", "Host: x", "Expect: something-else", "Content-Length: 3").expectsContinue).toBe(false);
    expect(parsed("PUT / HTTP/1.0", "Expect: 100-continue", "Content-Length: 3").expectsContinue).toBe(false);
  });
});

describe("the request target as a URL", () => {
  test("when the target is a path, then it joins a plain Host, or localhost", () => {
    expect(targetUrl("/v1/x?y=%zz", "api.example.com:8080")).toBe("http://api.example.com:8080/v1/x?y=%zz");
    expect(targetUrl("/v1/x", "bad host")).toBe("http://localhost/v1/x");
  });

  test("when the target is absolute, an authority or an asterisk, then it is read as a URL or refused", () => {
    expect(targetUrl("http://other.example/v1/x", "x")).toBe("http://other.example/v1/x");
    expect(targetUrl("example.com:443", "example.com:443")).toBe("example.com:443");
    expect(targetUrl("*", "x")).toBe("http://x/*");
    expect(targetUrl("//evil/x", "x")).toBe("http://x//evil/x");
    expect(targetUrl("http://[bad/v1", "x")).toBeNull();
    expect(targetUrl("http://h:99999/v1", "x")).toBeNull();
  });
});

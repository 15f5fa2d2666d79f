import { contentLength as parseContentLength, keepsAlive, listMembers, readFields, TOKEN } from "./fields";

/**
 * The head of an HTTP/1.1 request (RFC 9112), read strictly: whatever two
 * readers of the same bytes could take differently (both Content-Length and
 * Transfer-Encoding, differing lengths, folded lines, a space before the
 * colon, bare CR or LF, two Hosts) is refused rather than guessed at, so a
 * proxy in front of the gateway and the gateway never disagree on where a
 * request ends.
 */

export type BodyFraming = { kind: "none" } | { kind: "length"; length: number } | { kind: "chunked" };

export interface RequestHead {
  method: string;
  target: string;
  /** HTTP/1.0 or HTTP/1.1. */
  minorVersion: 0 | 1;
  /** Name, value, name, value… as sent (values without surrounding whitespace). */
  rawHeaders: string[];
  host: string | undefined;
  framing: BodyFraming;
  /** False when the client asked to close after this request, or spoke HTTP/1.0 without keep-alive. */
  keepAlive: boolean;
  /** The client waits for "100 Continue" before it sends the body. */
  expectsContinue: boolean;
}

export interface HeadRefusal {
  refused: string;
}

/** Visible ASCII: anything else in a target (a space, a control, raw UTF-8) is not a request target. */
const TARGET = /^[\x21-\x7e]+$/;
/** reg-name or IPv4 with an optional port, or an IPv6 literal; empty is allowed (a target with no authority). */
const HOST = /^(?:[A-Za-z0-9._~!$&'()*+,;=%-]*|\[[0-9A-Fa-f:.]+\])(?::[0-9]*)?$/;

const refuse = (refused: string): HeadRefusal => ({ refused });

/**
 * Parses a request head given as a latin1 string, without its final empty line.
 * Either the head, or why it is refused (answered 400 and the connection closed).
 */
export function parseRequestHead(text: string): RequestHead | HeadRefusal {
  const lines = text.split("\r\n");
  const requestLine = lines[0]!;
  const firstSpace = requestLine.indexOf(" ");
  const secondSpace = requestLine.indexOf(" ", firstSpace + 1);
  if (firstSpace <= 0 || secondSpace <= firstSpace + 1 || requestLine.indexOf(" ", secondSpace + 1) !== -1) {
    return refuse("The request line is not method, target and version separated by single spaces.");
  }
  const method = requestLine.slice(0, firstSpace);
  const target = requestLine.slice(firstSpace + 1, secondSpace);
  const version = requestLine.slice(secondSpace + 1);
  if (!TOKEN.test(method)) return refuse("The method is not a token.");
  if (!TARGET.test(target)) return refuse("The request target holds characters a target cannot.");
  // URL parsers read a backslash in a path as a slash, and drop a fragment: a proxy in front that does not would
  // see another path than the one served here.
  if (target.includes("#")) return refuse("A request target cannot hold a fragment (#).");
  const query = target.indexOf("?");
  if ((query === -1 ? target : target.slice(0, query)).includes("\\")) return refuse("A request target's path cannot hold a backslash.");
  let minorVersion: 0 | 1;
  if (version === "HTTP/1.1") minorVersion = 1;
  else if (version === "HTTP/1.0") minorVersion = 0;
  else return refuse("Only HTTP/1.1 and HTTP/1.0 are spoken here.");

  const fields = readFields(lines);
  if (typeof fields === "string") return refuse(fields);
  const { rawHeaders, host, hosts, contentLength, transferEncoding, connection, expect } = fields;

  if (hosts > 1) return refuse("The request has more than one Host header.");
  if (minorVersion === 1 && hosts === 0) return refuse("An HTTP/1.1 request must carry a Host header.");
  if (host !== undefined && !HOST.test(host)) return refuse("The Host header is not a host and port.");

  let framing: BodyFraming = { kind: "none" };
  if (transferEncoding !== undefined) {
    if (contentLength !== undefined) return refuse("A request cannot carry both Content-Length and Transfer-Encoding.");
    if (minorVersion === 0) return refuse("Transfer-Encoding is not part of HTTP/1.0.");
    const codings = listMembers(transferEncoding);
    if (codings.length !== 1 || codings[0] !== "chunked") return refuse("Only the chunked transfer coding is accepted, alone.");
    framing = { kind: "chunked" };
  } else if (contentLength !== undefined) {
    const length = parseContentLength(contentLength);
    if (length === null) return refuse("Content-Length is not one decimal length.");
    if (length > 0) framing = { kind: "length", length };
  }

  const keepAlive = keepsAlive(minorVersion, connection);
  const expectsContinue = minorVersion === 1 && expect !== undefined && listMembers(expect).includes("100-continue");
  return { method, target, minorVersion, rawHeaders, host, framing, keepAlive, expectsContinue };
}

export function isRefusal(head: RequestHead | HeadRefusal): head is HeadRefusal {
  return (head as HeadRefusal).refused !== undefined;
}

const PLAIN_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$/;

/**
 * The request target as a URL: origin form (`/path?query`) as it comes, with the
 * Host when it is a plain one (`//a/b` is the path `//a/b`, not a host `a`); the
 * absolute form as given; anything else (`*`, an authority) relative to the
 * root. Null when it is none of these.
 */
export function targetUrl(target: string, host: string | undefined): string | null {
  const origin = host !== undefined && PLAIN_HOST.test(host) ? `http://${host}` : "http://localhost";
  if (target.charCodeAt(0) === 47) return origin + target;
  return (URL.parse(target, origin) ?? URL.parse(target, "http://localhost"))?.href ?? null;
}

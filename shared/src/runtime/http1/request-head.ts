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

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII: anything else in a target (a space, a control, raw UTF-8) is not a request target. */
const TARGET = /^[\x21-\x7e]+$/;
/** A field value may hold visible characters, spaces, tabs and obs-text (0x80–0xFF), nothing else. */
const BAD_VALUE_CHAR = /[\x00-\x08\x0a-\x1f\x7f]/;
const DIGITS = /^[0-9]{1,15}$/;
/** reg-name or IPv4 with an optional port, or an IPv6 literal; empty is allowed (a target with no authority). */
const HOST = /^(?:[A-Za-z0-9._~!$&'()*+,;=%-]*|\[[0-9A-Fa-f:.]+\])(?::[0-9]*)?$/;

const refuse = (refused: string): HeadRefusal => ({ refused });

/** Trims the optional whitespace (SP, HTAB) around a field value. */
function trimWhitespace(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value.charCodeAt(start) === 32 || value.charCodeAt(start) === 9)) start++;
  while (end > start && (value.charCodeAt(end - 1) === 32 || value.charCodeAt(end - 1) === 9)) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function listMembers(value: string): string[] {
  return value
    .split(",")
    .map((member) => trimWhitespace(member).toLowerCase())
    .filter((member) => member !== "");
}

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
  let minorVersion: 0 | 1;
  if (version === "HTTP/1.1") minorVersion = 1;
  else if (version === "HTTP/1.0") minorVersion = 0;
  else return refuse("Only HTTP/1.1 and HTTP/1.0 are spoken here.");

  const rawHeaders: string[] = [];
  let host: string | undefined;
  let hosts = 0;
  let contentLength: string | undefined;
  let transferEncoding: string | undefined;
  let connection = "";
  let expect: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(":");
    if (colon <= 0) return refuse("A header line has no field name and colon.");
    const name = line.slice(0, colon);
    // A folded line starts with whitespace, and whitespace before the colon is refused (RFC 9112, 5.1 and 5.2).
    if (!TOKEN.test(name)) return refuse("A header field name is not a token.");
    const value = trimWhitespace(line.slice(colon + 1));
    if (BAD_VALUE_CHAR.test(value)) return refuse("A header field value holds a control character.");
    rawHeaders.push(name, value);
    switch (name.length) {
      case 4:
        if (name.toLowerCase() === "host") {
          host = value;
          hosts++;
        }
        break;
      case 6:
        if (name.toLowerCase() === "expect") expect = expect === undefined ? value : `${expect}, ${value}`;
        break;
      case 10:
        if (name.toLowerCase() === "connection") connection = connection ? `${connection}, ${value}` : value;
        break;
      case 14:
        if (name.toLowerCase() === "content-length") contentLength = contentLength === undefined ? value : `${contentLength}, ${value}`;
        break;
      case 17:
        if (name.toLowerCase() === "transfer-encoding") transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`;
        break;
    }
  }

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
    const lengths = contentLength.split(",").map(trimWhitespace);
    if (!lengths.every((length) => DIGITS.test(length) && length === lengths[0])) return refuse("Content-Length is not one decimal length.");
    const length = Number(lengths[0]);
    if (length > 0) framing = { kind: "length", length };
  }

  const tokens = connection ? listMembers(connection) : [];
  const keepAlive = minorVersion === 1 ? !tokens.includes("close") : tokens.includes("keep-alive") && !tokens.includes("close");
  const expectsContinue = minorVersion === 1 && expect !== undefined && listMembers(expect).includes("100-continue");
  return { method, target, minorVersion, rawHeaders, host, framing, keepAlive, expectsContinue };
}

export function isRefusal(head: RequestHead | HeadRefusal): head is HeadRefusal {
  return (head as HeadRefusal).refused !== undefined;
}

const PLAIN_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$/;

/**
 * The request target as a URL: origin form (`/path?query`) as it comes, with the
 * Host when it is a plain one; the absolute form as given; anything else (`*`,
 * an authority) relative to the root. Null when it is none of these.
 */
export function targetUrl(target: string, host: string | undefined): string | null {
  const origin = host !== undefined && PLAIN_HOST.test(host) ? `http://${host}` : "http://localhost";
  if (target.charCodeAt(0) === 47 && target.charCodeAt(1) !== 47) return origin + target;
  return (URL.parse(target, origin) ?? URL.parse(target, "http://localhost"))?.href ?? null;
}

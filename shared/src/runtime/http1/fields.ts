/** Pieces of RFC 9110/9112 field syntax read the same way in requests and in answers. */

export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A field value may hold visible characters, spaces, tabs and obs-text (0x80–0xFF), nothing else. */
const BAD_VALUE_CHAR = /[\x00-\x08\x0a-\x1f\x7f]/;
const DIGITS = /^[0-9]{1,15}$/;

/** Trims the optional whitespace (SP, HTAB) around a field value. */
export function trimWhitespace(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value.charCodeAt(start) === 32 || value.charCodeAt(start) === 9)) start++;
  while (end > start && (value.charCodeAt(end - 1) === 32 || value.charCodeAt(end - 1) === 9)) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

export function listMembers(value: string): string[] {
  return value
    .split(",")
    .map((member) => trimWhitespace(member).toLowerCase())
    .filter((member) => member !== "");
}

/** One decimal length from a Content-Length (repeated values must all be the same), or null when it is not one. */
export function contentLength(value: string): number | null {
  const lengths = value.split(",").map(trimWhitespace);
  if (!lengths.every((length) => DIGITS.test(length) && length === lengths[0])) return null;
  return Number(lengths[0]);
}

/** The fields of a head; those that frame the message or steer the connection each joined into one list (RFC 9110, 5.3). */
export interface HeadFields {
  /** Name, value, name, value… as sent (values without surrounding whitespace). */
  rawHeaders: string[];
  /** The last Host, and how many there were. */
  host: string | undefined;
  hosts: number;
  expect: string | undefined;
  connection: string;
  contentLength: string | undefined;
  transferEncoding: string | undefined;
}

/** Reads the field lines of a head (every line after the first); a string says why they are malformed. */
export function readFields(lines: string[]): HeadFields | string {
  const fields: HeadFields = { rawHeaders: [], host: undefined, hosts: 0, expect: undefined, connection: "", contentLength: undefined, transferEncoding: undefined };
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(":");
    if (colon <= 0) return "A header line has no field name and colon.";
    const name = line.slice(0, colon);
    // A folded line starts with whitespace, and whitespace before the colon is refused (RFC 9112, 5.1 and 5.2).
    if (!TOKEN.test(name)) return "A header field name is not a token.";
    const value = trimWhitespace(line.slice(colon + 1));
    if (BAD_VALUE_CHAR.test(value)) return "A header field value holds a control character.";
    fields.rawHeaders.push(name, value);
    // Only a name of the right length is compared: most are none of these.
    switch (name.length) {
      case 4:
        if (name.toLowerCase() === "host") {
          fields.host = value;
          fields.hosts++;
        }
        break;
      case 6:
        if (name.toLowerCase() === "expect") fields.expect = joined(fields.expect, value);
        break;
      case 10:
        if (name.toLowerCase() === "connection") fields.connection = fields.connection ? `${fields.connection}, ${value}` : value;
        break;
      case 14:
        if (name.toLowerCase() === "content-length") fields.contentLength = joined(fields.contentLength, value);
        break;
      case 17:
        if (name.toLowerCase() === "transfer-encoding") fields.transferEncoding = joined(fields.transferEncoding, value);
        break;
    }
  }
  return fields;
}

/** Whether the connection stays open after this message, by its version and its Connection list. */
export function keepsAlive(minorVersion: number, connection: string): boolean {
  const tokens = connection ? listMembers(connection) : [];
  return minorVersion === 1 ? !tokens.includes("close") : tokens.includes("keep-alive") && !tokens.includes("close");
}

const joined = (list: string | undefined, value: string) => (list === undefined ? value : `${list}, ${value}`);

/** A head (latin1 text, its empty line included) and a body after it, as one buffer: one write for both. */
export function headWithBody(head: string, body?: Uint8Array): Buffer {
  if (!body || body.byteLength === 0) return Buffer.from(head, "latin1");
  const bytes = Buffer.allocUnsafe(head.length + body.byteLength);
  bytes.write(head, 0, "latin1");
  bytes.set(body, head.length);
  return bytes;
}

/** One chunk of a chunked body (RFC 9112, 7.1): its size in hex, the data, CRLF; `data` must not be empty. */
export function chunkOf(data: Uint8Array): Buffer {
  const size = data.byteLength.toString(16);
  const chunk = Buffer.allocUnsafe(size.length + data.byteLength + 4);
  chunk.write(`${size}\r\n`, 0, "latin1");
  chunk.set(data, size.length + 2);
  chunk.write("\r\n", chunk.length - 2, "latin1");
  return chunk;
}

/** The bytes that end a head. */
export const HEAD_END = Buffer.from("\r\n\r\n");
/** The last chunk of a chunked body, without trailers. */
export const LAST_CHUNK = Buffer.from("0\r\n\r\n");
export const EMPTY = Buffer.alloc(0);

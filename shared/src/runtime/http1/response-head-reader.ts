import { contentLength, keepsAlive, listMembers, readFields } from "./fields";

/**
 * The head of an answer from a service, read as strictly as a request head
 * (request-head.ts): an answer two readers could frame differently is not
 * taken at all, since where it ends decides whether the connection can carry
 * the next request.
 */

export type AnswerFraming = { kind: "none" } | { kind: "length"; length: number } | { kind: "chunked" } | { kind: "until-close" };

export interface ResponseHead {
  status: number;
  /** Name, value, name, value… as sent (values without surrounding whitespace). */
  rawHeaders: string[];
  /** As the head says; a HEAD request's answer has no body whatever it says (the caller knows the method). */
  framing: AnswerFraming;
  /** False when the service closes the connection after this answer. */
  keepAlive: boolean;
}

export class MalformedAnswer extends Error {}

const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9][0-9]{2})(?: [^\x00-\x08\x0a-\x1f\x7f]*)?$/;

/** Parses an answer head given as a latin1 string without its final empty line; throws MalformedAnswer. */
export function readResponseHead(text: string): ResponseHead {
  const lines = text.split("\r\n");
  const statusLine = STATUS_LINE.exec(lines[0]!);
  if (statusLine === null) throw new MalformedAnswer("The status line is not HTTP/1.x, a status and a reason.");
  const minorVersion = Number(statusLine[1]);
  const status = Number(statusLine[2]);
  const fields = readFields(lines);
  if (typeof fields === "string") throw new MalformedAnswer(fields);
  const { rawHeaders, connection, transferEncoding } = fields;
  const length = fields.contentLength;
  let keepAlive = keepsAlive(minorVersion, connection);
  let framing: AnswerFraming;
  if (status < 200 || status === 204 || status === 304) {
    framing = { kind: "none" };
  } else if (transferEncoding !== undefined) {
    if (length !== undefined) throw new MalformedAnswer("An answer cannot carry both Content-Length and Transfer-Encoding.");
    const codings = listMembers(transferEncoding);
    if (codings.length !== 1 || codings[0] !== "chunked") throw new MalformedAnswer("Only the chunked transfer coding is taken, alone.");
    framing = { kind: "chunked" };
  } else if (length !== undefined) {
    const bytes = contentLength(length);
    if (bytes === null) throw new MalformedAnswer("Content-Length is not one decimal length.");
    framing = { kind: "length", length: bytes };
  } else {
    framing = { kind: "until-close" };
    keepAlive = false;
  }
  return { status, rawHeaders, framing, keepAlive };
}

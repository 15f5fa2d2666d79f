import type { FieldReader } from "../incoming-request";

/** Reason phrases of the statuses answered here; clients ignore the phrase, so any other status goes without one. */
const REASONS: Record<number, string> = {
  100: "Continue",
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  206: "Partial Content",
  301: "Moved Permanently",
  302: "Found",
  304: "Not Modified",
  307: "Temporary Redirect",
  308: "Permanent Redirect",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  409: "Conflict",
  410: "Gone",
  412: "Precondition Failed",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** Framing and connection headers are this server's to write, whatever the handler's Response carries. */
const OWN_HEADERS = new Set(["content-length", "connection", "transfer-encoding", "keep-alive", "date"]);

let dateSecond = 0;
let dateValue = "";

/** The Date header's value, formatted once a second. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateValue = new Date(now).toUTCString();
  }
  return dateValue;
}

export interface HeadOptions {
  version: 0 | 1;
  /** The connection closes after this answer. */
  closing: boolean;
  /** Content-Length to send, if any. */
  length?: number | string;
  chunked?: boolean;
}

/**
 * The status line and headers of an answer, its empty line included, as text
 * to write as latin1 (header values are byte strings: latin1 keeps them as
 * they are).
 */
export function responseHead(response: { status: number; headers: Pick<FieldReader, "forEach"> }, options: HeadOptions): string {
  const reason = REASONS[response.status];
  let text = reason === undefined ? `HTTP/1.1 ${response.status} \r\n` : `HTTP/1.1 ${response.status} ${reason}\r\n`;
  response.headers.forEach((value, name) => {
    if (!OWN_HEADERS.has(name)) text += `${name}: ${value}\r\n`;
  });
  text += `date: ${httpDate()}\r\n`;
  if (options.closing) text += "connection: close\r\n";
  else if (options.version === 0) text += "connection: keep-alive\r\n";
  if (options.length !== undefined) text += `content-length: ${options.length}\r\n`;
  if (options.chunked) text += "transfer-encoding: chunked\r\n";
  return `${text}\r\n`;
}

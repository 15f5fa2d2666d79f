import { SAFE_METHODS } from "../http/safe-methods";

/**
 * The gateway → service hop, as the gateway asks for it: both runtimes send
 * it with our HTTP/1.1 client (http1/client.ts) over their own TCP sockets;
 * fetch-upstream.ts sends it with fetch, for comparison.
 */

/** One request to a service. */
export interface UpstreamRequest {
  /** `http://host:port`. */
  origin: string;
  method: string;
  pathAndQuery: string;
  /** End-to-end headers only: the sender writes Host, the body's framing and Connection itself. */
  headers: [string, string][];
  body: ReadableStream<Uint8Array> | Uint8Array | null;
  /**
   * The performance.now() instant by which the answer must have come (its
   * head, and a body read whole), or the request fails with upstreamTimeout().
   * A streamed body is read at its reader's pace: it fails with
   * upstreamTimeout() only when the service sends nothing of it, for as long
   * as it had to answer, while it is asked for (body-idle-watch.ts).
   */
  deadline: number;
}

/**
 * The service's answer, without the hop's own headers (framing, Connection).
 * A body of a declared length up to WHOLE_ANSWER_MAX_BYTES is read whole
 * before the answer is given (within the deadline: a service that stalls
 * half-way fails like one that never answered); any other is streamed at its
 * reader's pace, a slow reader holding little here.
 */
export interface UpstreamAnswer {
  status: number;
  /** As pairs, names lower-case: a Response takes them without a Headers made in between, and a PlainAnswer as they are. */
  headers: [string, string][];
  /** Null when the answer has no body (HEAD, 204, 304). */
  body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null;
}

/**
 * Rejects with upstreamTimeout() at the deadline, with an error whose code
 * says so (ECONNREFUSED…) when no connection could be made, and with any other
 * error when the connection broke or the answer could not be read.
 */
export type SendUpstream = (request: UpstreamRequest) => Promise<UpstreamAnswer>;

export function upstreamTimeout(): DOMException {
  return new DOMException("The service did not answer in time.", "TimeoutError");
}

export const WHOLE_ANSWER_MAX_BYTES = 64 * 1024;

/**
 * How long the gateway keeps an idle connection to a service (swept every
 * quarter of it): well under the services' own idle timeout (60 s), so a
 * connection taken from the pool is rarely one its service is closing.
 */
export const UPSTREAM_IDLE_MS = 4_000;

/**
 * Methods a hop may send once more by itself when a reused connection closed
 * before any of the answer came: the safe ones, which change nothing.
 * PUT and DELETE are idempotent, but not to send again here: the connection
 * may have broken after the service committed, and the second attempt then
 * answers for the first (a DELETE that ran is 404, a PUT with If-Match 412),
 * or repeats a PUT over another client's write made between.
 */
export const SENT_AGAIN_METHODS = SAFE_METHODS;

/** Headers of one hop of an answer: each hop writes its own. */
export const HOP_ANSWER_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "content-length"]);

import { ApiError, DEADLINE_HEADER, PRINCIPAL_HEADER, REQUEST_ID_HEADER, serviceBudgetMs, watchDeadline } from "@ws/shared";

/** Headers that describe one hop, or that carry the client's credentials: never passed on. */
const NOT_FORWARDED = new Set([
  "authorization", "x-api-key", "cookie", "host", "connection", "keep-alive", "proxy-authorization",
  "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "content-length", PRINCIPAL_HEADER,
  REQUEST_ID_HEADER, DEADLINE_HEADER,
]);
const NOT_RETURNED = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"]);

export interface ForwardRequest {
  upstream: string;
  method: string;
  pathAndQuery: string;
  headers: Headers;
  /** Streamed to the service as it arrives from the client, never held whole. */
  body: ReadableStream<Uint8Array> | Uint8Array | null;
  /** Why the body stopped early (too large, over budget, client gone): that, not the service, is then the answer. */
  bodyFailure?: () => ApiError | undefined;
  principalToken: string;
  requestId: string;
  timeoutMs: number;
  /** Told why the service did not answer (for metrics). */
  onError?: (kind: UpstreamErrorKind) => void;
}

/** unreachable: no connection was made; timeout: no answer in time; lost: the connection broke before the answer. */
export type UpstreamErrorKind = "timeout" | "unreachable" | "lost";

/** Methods a client may repeat without changing the result beyond the first time (RFC 9110). */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

/** Socket errors that mean no connection was made, so the service never saw the request. */
function neverConnected(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (code === "ECONNREFUSED" || code === "ConnectionRefused" || code === "ENOTFOUND" || code === "EHOSTUNREACH") return true;
    // Deno names the step that failed: "client error (Connect)".
    if (/connection refused|unable to connect|\(Connect\)/i.test(cause.message)) return true;
  }
  return false;
}

/**
 * An answer of a declared length up to this is read here, whole, within the
 * timeout (a service that stalls half-way is then a 504 like one that never
 * answered), and handed on as bytes: one write to the client. Larger ones are
 * streamed at the client's pace, so a slow client holds little here.
 */
const WHOLE_ANSWER_MAX_BYTES = 64 * 1024;

function upstreamFailure(request: ForwardRequest, error: unknown): ApiError {
  const bodyFailure = request.bodyFailure?.();
  if (bodyFailure) return bodyFailure;
  if (neverConnected(error)) {
    request.onError?.("unreachable");
    return new ApiError("service_unavailable", "The service is unavailable. The request was not executed; try again later.", { headers: { "retry-after": "1" }, cause: error });
  }
  const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
  request.onError?.(timedOut ? "timeout" : "lost");
  return new ApiError(
    "outcome_unknown",
    `${timedOut ? "The service did not answer in time." : "The connection to the service broke before it answered."} The request may or may not have taken effect; check before repeating it.`,
    { cause: error, ...(IDEMPOTENT.has(request.method.toUpperCase()) ? { headers: { "retry-after": "1" } } : {}) },
  );
}

/**
 * Sends the request to its service, with the time the service may spend on it
 * (a little less than this timeout: what the service commits, it commits
 * before the gateway answers). A service that cannot be reached is a 503 (not
 * executed, retry); one that got the request and did not answer in time is a
 * 504 `outcome_unknown`, with `Retry-After` only when repeating the method is harmless.
 */
export async function forward(request: ForwardRequest): Promise<Response> {
  const headers = new Headers();
  request.headers.forEach((value, name) => {
    if (!NOT_FORWARDED.has(name)) headers.set(name, value);
  });
  headers.set(PRINCIPAL_HEADER, request.principalToken);
  headers.set(REQUEST_ID_HEADER, request.requestId);
  headers.set(DEADLINE_HEADER, String(serviceBudgetMs(request.timeoutMs)));
  // One shared timer for every request's timeout instead of a timer each (AbortSignal.timeout) left running after the answer.
  const controller = new AbortController();
  const unwatch = watchDeadline(performance.now() + request.timeoutMs, () =>
    controller.abort(new DOMException("The service did not answer in time.", "TimeoutError")),
  );
  let upstream: Response;
  try {
    upstream = await fetch(request.upstream + request.pathAndQuery, {
      method: request.method,
      headers,
      body: request.body,
      duplex: "half",
      redirect: "manual",
      signal: controller.signal,
    } as RequestInit);
  } catch (error) {
    unwatch();
    throw upstreamFailure(request, error);
  }
  const responseHeaders = new Headers();
  upstream.headers.forEach((value, name) => {
    if (!NOT_RETURNED.has(name)) responseHeaders.set(name, value);
  });
  // fetch hands over an encoded body decoded, so its length is known only when it was not encoded.
  const length = upstream.headers.has("content-encoding") ? null : upstream.headers.get("content-length");
  if (length === null || Number(length) > WHOLE_ANSWER_MAX_BYTES) {
    // Streamed: the timeout stays armed until it passes, aborting a body still running by then.
    return new Response(upstream.body, { status: upstream.status, headers: responseHeaders });
  }
  let body: Uint8Array<ArrayBuffer>;
  try {
    body = await upstream.bytes();
  } catch (error) {
    throw upstreamFailure(request, error);
  } finally {
    unwatch();
  }
  responseHeaders.set("content-length", String(body.byteLength));
  return new Response(body, { status: upstream.status, headers: responseHeaders });
}

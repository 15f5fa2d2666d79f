import { ApiError, PRINCIPAL_HEADER, REQUEST_ID_HEADER } from "@ws/shared";

/** Headers that describe one hop, or that carry the client's credentials: never passed on. */
const NOT_FORWARDED = new Set([
  "authorization", "x-api-key", "cookie", "host", "connection", "keep-alive", "proxy-authorization",
  "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "content-length", PRINCIPAL_HEADER,
  REQUEST_ID_HEADER,
]);
const NOT_RETURNED = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"]);

export interface ForwardRequest {
  upstream: string;
  method: string;
  pathAndQuery: string;
  headers: Headers;
  /** Streamed to the service as it arrives from the client, never held whole. */
  body: ReadableStream<Uint8Array> | null;
  /** Why the body stopped early (too large, over budget, client gone): that, not the service, is then the answer. */
  bodyFailure?: () => ApiError | undefined;
  principalToken: string;
  requestId: string;
  timeoutMs: number;
  /** Told why the service did not answer (for metrics). */
  onError?: (kind: UpstreamErrorKind) => void;
}

export type UpstreamErrorKind = "timeout" | "unreachable";

/** Sends the request to its service; a service that is down or slow is a 503, never a hang. */
export async function forward(request: ForwardRequest): Promise<Response> {
  const headers = new Headers();
  request.headers.forEach((value, name) => {
    if (!NOT_FORWARDED.has(name)) headers.set(name, value);
  });
  headers.set(PRINCIPAL_HEADER, request.principalToken);
  headers.set(REQUEST_ID_HEADER, request.requestId);
  let upstream: Response;
  try {
    upstream = await fetch(request.upstream + request.pathAndQuery, {
      method: request.method,
      headers,
      body: request.body,
      duplex: "half",
      redirect: "manual",
      signal: AbortSignal.timeout(request.timeoutMs),
    } as RequestInit);
  } catch (error) {
    const bodyFailure = request.bodyFailure?.();
    if (bodyFailure) throw bodyFailure;
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    request.onError?.(timedOut ? "timeout" : "unreachable");
    throw new ApiError(
      "service_unavailable",
      timedOut ? "The service did not answer in time. Try again later." : "The service is unavailable. Try again later.",
      { headers: { "retry-after": "1" } },
    );
  }
  const responseHeaders = new Headers();
  upstream.headers.forEach((value, name) => {
    if (!NOT_RETURNED.has(name)) responseHeaders.set(name, value);
  });
  return new Response(upstream.body, { status: upstream.status, headers: responseHeaders });
}

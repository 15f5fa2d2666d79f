import { ApiError, DEADLINE_HEADER, outcomeUnknown, PRINCIPAL_HEADER, REQUEST_ID_HEADER, PlainAnswer, serviceBudgetMs, WORKSPACE_PURGE_HEADER, type Answer, type FieldReader, type SendUpstream } from "@ws/shared";

/** Headers that describe one hop, that carry the client's credentials, or that only the gateway may send: never passed on. */
const NOT_FORWARDED = new Set([
  "authorization", "x-api-key", "cookie", "host", "connection", "keep-alive", "proxy-authorization",
  "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "content-length", PRINCIPAL_HEADER,
  REQUEST_ID_HEADER, DEADLINE_HEADER, WORKSPACE_PURGE_HEADER,
]);

/**
 * The fields the client's Connection header names: they were meant for its
 * hop to the gateway alone, so a proxy removes them (RFC 9110, 7.6.1).
 */
function namedByConnection(connection: string | null): Set<string> | undefined {
  // What nearly every client sends names no field.
  if (connection === null || connection === "keep-alive" || connection === "close") return undefined;
  const names = new Set<string>();
  for (const option of connection.split(",")) names.add(option.trim().toLowerCase());
  return names;
}

export interface ForwardRequest {
  /** How this runtime sends a request to a service. */
  send: SendUpstream;
  upstream: string;
  method: string;
  pathAndQuery: string;
  headers: FieldReader;
  /** Streamed to the service as it arrives from the client, never held whole. */
  body: ReadableStream<Uint8Array> | Uint8Array | null;
  /** Why the body stopped early (too large, over budget, client gone): that, not the service, is then the answer. */
  bodyFailure?: () => ApiError | undefined;
  principalToken: string;
  requestId: string;
  timeoutMs: number;
  /** Told why the service did not answer (for metrics). */
  onError?: (kind: UpstreamErrorKind) => void;
  /** Told when the service's answer, passed on as it comes, is given up before its end (its client went away). */
  onGivenUp?: () => void;
}

/**
 * unreachable: no connection was made; timeout: no answer in time; lost: the
 * connection broke before the answer; refused: the service did not accept the
 * gateway's signed principal (their signing keys differ).
 */
export type UpstreamErrorKind = "timeout" | "unreachable" | "lost" | "refused";

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

function upstreamFailure(request: ForwardRequest, error: unknown): ApiError {
  const bodyFailure = request.bodyFailure?.();
  if (bodyFailure) return bodyFailure;
  if (neverConnected(error)) {
    request.onError?.("unreachable");
    return new ApiError("service_unavailable", "The service is unavailable. The request was not executed; try again later.", { headers: { "retry-after": "1" }, cause: error });
  }
  const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
  request.onError?.(timedOut ? "timeout" : "lost");
  return outcomeUnknown(timedOut ? "The service did not answer in time." : "The connection to the service broke before it answered.", {
    cause: error,
    ...(IDEMPOTENT.has(request.method.toUpperCase()) ? { headers: { "retry-after": "1" } } : {}),
  });
}

/**
 * Sends the request to its service, with the time the service may spend on it
 * (a little less than this timeout: what the service commits, it commits
 * before the gateway answers). A service that cannot be reached is a 503 (not
 * executed, retry); one that got the request and did not answer in time is a
 * 502 with the outcome unknown, with `Retry-After` only when repeating the method is harmless.
 */
export async function forward(request: ForwardRequest): Promise<Answer> {
  let headers: [string, string][] = [];
  let connection: string | null = null;
  request.headers.forEach((value, name) => {
    if (!NOT_FORWARDED.has(name)) headers.push([name, value]);
    else if (name === "connection") connection = value;
  });
  const hopOnly = namedByConnection(connection);
  if (hopOnly) headers = headers.filter(([name]) => !hopOnly.has(name));
  headers.push([PRINCIPAL_HEADER, request.principalToken], [REQUEST_ID_HEADER, request.requestId], [DEADLINE_HEADER, String(serviceBudgetMs(request.timeoutMs))]);
  let answer;
  try {
    answer = await request.send({
      origin: request.upstream,
      method: request.method,
      pathAndQuery: request.pathAndQuery,
      headers,
      body: request.body,
      deadline: performance.now() + request.timeoutMs,
    });
  } catch (error) {
    throw upstreamFailure(request, error);
  }
  if (answer.status === 401) throw principalRefused(request, answer.body);
  // Read whole: passed on as it is, with no Response made of it, in one write to the client.
  if (answer.body === null || answer.body instanceof Uint8Array) return new PlainAnswer(answer.status, answer.headers, answer.body);
  const body = request.onGivenUp ? tellingGiveUp(answer.body, request.onGivenUp) : answer.body;
  return new Response(body, { status: answer.status, headers: answer.headers });
}

/**
 * A service answers 401 only when it refuses the principal the gateway signed:
 * the client's key was accepted, so this is the deployment's fault (the
 * gateway and the service hold different INTERNAL_SIGNING_KEYs), never the
 * client's. The service did nothing with the request.
 */
function principalRefused(request: ForwardRequest, body: ReadableStream<Uint8Array> | Uint8Array | null): ApiError {
  if (body instanceof ReadableStream) body.cancel().catch(() => {});
  request.onError?.("refused");
  return new ApiError("service_unavailable", "The service did not accept the gateway's credentials. The request was not executed; try again later.", {
    headers: { "retry-after": "1" },
  });
}

/** The same body, which tells `givenUp` when its reader cancels it before its end. */
function tellingGiveUp(body: ReadableStream<Uint8Array>, givenUp: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const read = await reader.read();
        if (read.done) controller.close();
        else controller.enqueue(read.value);
      },
      cancel(reason) {
        givenUp();
        return reader.cancel(reason);
      },
    },
    // Nothing is read from the service before the client's side asks for it.
    { highWaterMark: 0 },
  );
}

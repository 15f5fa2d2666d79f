import type { Answer, IncomingRequest } from "@ws/shared";
import type { PublicRequestDeps } from "../handle-public-request";

/**
 * What the steps learn about one request that its answer and its log line
 * need: filled in as the request goes, read once at the end.
 */
export interface RequestTrace {
  readonly requestId: string;
  /** The operation, or "unmatched" until the route is known. */
  route: string;
  keyId?: string;
  /** The rate-limit decision, when one was taken. */
  outcome?: string;
  /** The rate-limit headers: on every answer once the key is counted, errors included. */
  headers: Record<string, string>;
  /** Why a 5xx happened (its error's cause), for the log line only. */
  cause?: string;
}

export function startTrace(requestId: string): RequestTrace {
  return { requestId, route: "unmatched", headers: {} };
}

/** The one place a request is logged and measured, whatever its answer. */
export function report(deps: Pick<PublicRequestDeps, "logger" | "observe">, request: IncomingRequest, trace: RequestTrace, response: Answer, started: number): void {
  const seconds = (performance.now() - started) / 1000;
  deps.observe?.({ route: trace.route, method: request.method, status: response.status, seconds, outcome: trace.outcome });
  deps.logger.info("request", {
    request_id: trace.requestId,
    key_id: trace.keyId,
    method: request.method,
    route: trace.route,
    status: response.status,
    latency_ms: Math.round(seconds * 10_000) / 10,
    ...(trace.cause && { cause: trace.cause }),
  });
}

import { ApiError, databaseFailure, notExecuted, type Logger } from "@ws/shared";
import type { RequestTrace } from "./trace";

/** The one path from a thrown error to the gateway's answer: the error object, with the rate-limit headers known so far. */
export function answerError(error: unknown, trace: RequestTrace, logger: Logger): Response {
  // The gateway's own database calls (key look-ups) come before forwarding: when they fail, nothing ran.
  const answer = error instanceof ApiError ? error : databaseFailure(error) ? notExecuted("The database is unavailable.", error) : undefined;
  if (!answer) {
    logger.error("request failed", { request_id: trace.requestId, error: error instanceof Error ? error.stack : String(error) });
    return new ApiError("internal_error", "Something went wrong on our side.").toResponse(trace.requestId, trace.headers);
  }
  if (answer.status >= 500) trace.cause = answer.causeMessage();
  return answer.toResponse(trace.requestId, trace.headers);
}

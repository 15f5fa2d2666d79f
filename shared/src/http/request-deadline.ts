import { Elysia } from "elysia";
import { ApiError } from "../errors/api-error";
import { deadlineOf, notExecuted, type Deadline } from "./deadline";
import { requestIdOf } from "./request-id";

/**
 * Serves an API request within its deadline. At the deadline it is answered
 * 503 "not executed", unless its commit has begun (then its own answer is
 * awaited): work still running then can no longer commit (`writeWithin`), so
 * the answer holds. Called when the request arrives, which starts its clock.
 */
export async function answerWithinDeadline(request: Request, serve: (deadline: Deadline) => Promise<Response>): Promise<Response> {
  const deadline = deadlineOf(request);
  const served = serve(deadline).catch((error: unknown) => {
    if (error instanceof ApiError) return error.toResponse(requestIdOf(request));
    throw error;
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const atDeadline = new Promise<Response | undefined>((resolve) => {
    timer = setTimeout(() => {
      resolve(deadline.expire() ? notExecuted("The request was not completed before its deadline.").toResponse(requestIdOf(request)) : undefined);
    }, deadline.remainingMs());
  });
  try {
    return (await Promise.race([served, atDeadline])) ?? (await served);
  } finally {
    clearTimeout(timer);
  }
}

/** Hands route handlers the request's deadline, for the work they start. */
export function requestDeadline() {
  return new Elysia({ name: "request-deadline" }).derive({ as: "global" }, ({ request }) => ({ deadline: deadlineOf(request) }));
}

import { ApiError } from "../errors/api-error";
import { deadlineOf, notExecuted, type Deadline } from "./deadline";
import { watchDeadline } from "./deadline-watch";
import { requestIdOf } from "./request-id";

/**
 * Serves an API request within its deadline. At the deadline it is answered
 * 503 "not executed", unless its commit has begun (then its own answer is
 * awaited): work still running then can no longer commit (`writeWithin`), so
 * the answer holds. Called when the request arrives, which starts its clock.
 */
export function answerWithinDeadline(request: Request, serve: (deadline: Deadline) => Promise<Response>): Promise<Response> {
  const deadline = deadlineOf(request);
  // One promise settled by whichever comes first, rather than a race of two.
  return new Promise<Response>((resolve, reject) => {
    let answered = false;
    const unwatch = watchDeadline(deadline.at, () => {
      if (!deadline.expire()) return;
      answered = true;
      resolve(notExecuted("The request was not completed before its deadline.").toResponse(requestIdOf(request)));
    });
    serve(deadline).then(
      (response) => {
        unwatch();
        // An answer that comes after the deadline's is never sent: its body is given up, and what it held with it.
        if (answered) response.body?.cancel().catch(() => {});
        else resolve(response);
      },
      (error: unknown) => {
        unwatch();
        if (error instanceof ApiError) resolve(error.toResponse(requestIdOf(request)));
        else reject(error);
      },
    );
  });
}

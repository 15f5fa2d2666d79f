import { watchDeadline } from "../http/deadline-watch";
import { BodyIdleWatch } from "./body-idle-watch";
import { HOP_ANSWER_HEADERS, upstreamTimeout, WHOLE_ANSWER_MAX_BYTES, type UpstreamAnswer, type UpstreamRequest } from "./upstream";

/**
 * The hop sent with the runtime's fetch (the bench's and the hop tests'
 * yardstick; the runtimes send it with the HTTP/1.1 client).
 */
export async function fetchUpstream(request: UpstreamRequest): Promise<UpstreamAnswer> {
  // One shared timer for every request's timeout instead of a timer each (AbortSignal.timeout) left running after the answer.
  const controller = new AbortController();
  const budgetMs = request.deadline - performance.now();
  const unwatch = watchDeadline(request.deadline, () => controller.abort(upstreamTimeout()));
  try {
    const answer = await fetch(request.origin + request.pathAndQuery, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      duplex: "half",
      redirect: "manual",
      signal: controller.signal,
    } as RequestInit);
    const headers: [string, string][] = [];
    answer.headers.forEach((value, name) => {
      // fetch hands over an encoded body decoded: its encoding no longer applies.
      if (!HOP_ANSWER_HEADERS.has(name) && name !== "content-encoding") headers.push([name, value]);
    });
    const length = answer.headers.has("content-encoding") ? null : answer.headers.get("content-length");
    if (answer.body === null || length === null || Number(length) > WHOLE_ANSWER_MAX_BYTES) {
      unwatch();
      const body = answer.body && idleLimited(answer.body, budgetMs, () => controller.abort(upstreamTimeout()));
      return { status: answer.status, headers, body };
    }
    const body = await answer.bytes();
    unwatch();
    return { status: answer.status, headers, body };
  } catch (error) {
    unwatch();
    throw error;
  }
}

/** The body, read at its reader's pace, failing (by `abort`) once the service has sent nothing of it for `idleMs` while it was asked for. */
function idleLimited(body: ReadableStream<Uint8Array>, idleMs: number, abort: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const idle = new BodyIdleWatch(idleMs, abort);
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        idle.waiting();
        try {
          const read = await reader.read();
          idle.satisfied();
          if (read.done) {
            idle.stop();
            controller.close();
          } else {
            controller.enqueue(read.value);
          }
        } catch (error) {
          idle.stop();
          controller.error(error);
        }
      },
      cancel(reason) {
        idle.stop();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

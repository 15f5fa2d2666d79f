import { watchDeadline } from "../http/deadline-watch";
import { HOP_ANSWER_HEADERS, upstreamTimeout, WHOLE_ANSWER_MAX_BYTES, type SendUpstream } from "./upstream";

/** The hop sent with the runtime's fetch. */
export const fetchUpstream: SendUpstream = async (request) => {
  // One shared timer for every request's timeout instead of a timer each (AbortSignal.timeout) left running after the answer.
  const controller = new AbortController();
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
    // Streamed: the timer stays armed until the deadline, aborting a body still running by then.
    if (length === null || Number(length) > WHOLE_ANSWER_MAX_BYTES) return { status: answer.status, headers, body: answer.body };
    const body = await answer.bytes();
    unwatch();
    return { status: answer.status, headers, body };
  } catch (error) {
    unwatch();
    throw error;
  }
};

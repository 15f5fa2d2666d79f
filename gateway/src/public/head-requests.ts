import { SERVICE_ANSWER_IN_MEMORY_MAX_BYTES, toResponse, withMethod, type Answer, type IncomingRequest } from "@ws/shared";

/** Past what an answer made whole carries, the answer is streamed from the database. */
export const HEAD_READS_AT_MOST_BYTES = SERVICE_ANSWER_IN_MEMORY_MAX_BYTES;

/**
 * HEAD wherever GET is served (RFC 9110): the request is answered as the GET it
 * stands for, through the same authentication and rate limit (so it counts as
 * a GET does), and sent back with the GET's status and headers but no body.
 * The GET's body is read to its end and dropped, not cancelled: a service sees
 * a cancelled answer as one its client gave up, and the pages service makes a
 * workspace that gives up large answers wait for room (large-contents.ts).
 * Up to HEAD_READS_AT_MOST_BYTES only: past it, the body is a list streamed
 * from the database (up to a gigabyte), which one HEAD, costing its client
 * nothing to read, must not make the gateway and the service read whole.
 */
export function answeringHead<Rest extends unknown[]>(fetch: (request: IncomingRequest, ...rest: Rest) => Promise<Answer>) {
  const asGet = async (request: IncomingRequest, ...rest: Rest): Promise<Response> => {
    const response = toResponse(await fetch(withMethod(request, "GET"), ...rest));
    if (response.body) void drop(response.body);
    return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  // Not an async function itself: every other request goes straight through, with no promise of its own.
  return (request: IncomingRequest, ...rest: Rest): Promise<Answer> => (request.method === "HEAD" ? asGet(request, ...rest) : fetch(request, ...rest));
}

/**
 * Reads a body to its end, keeping nothing, or cancels it past
 * HEAD_READS_AT_MOST_BYTES; a body that fails ends it (the hop's own watch
 * bounds a stalled one).
 */
async function drop(body: ReadableStream<Uint8Array>): Promise<void> {
  const reader = body.getReader();
  let read = 0;
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      read += chunk.value.byteLength;
      if (read > HEAD_READS_AT_MOST_BYTES) return void (await reader.cancel());
    }
  } catch {
    // Failed or cut: nothing more to read.
  }
}

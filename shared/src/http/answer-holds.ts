/**
 * What an answer holds until it has gone out: room in a budget of memory taken
 * for its content (a large page, a stored answer replayed). The answer's bytes live until
 * the gateway has read them, and it reads them only as fast as its client does,
 * so such room is given back when the answer's body has been sent whole, or
 * given up on, not when the handler returns.
 */
const holds = new WeakMap<Request, (() => void)[]>();

/** Gives `release` to the request's answer: called once that answer is sent, or dropped. */
export function releaseWhenAnswered(request: Request, release: () => void): void {
  const releases = holds.get(request);
  if (releases) releases.push(release);
  else holds.set(request, [release]);
}

/** The answer to send, which calls the releases the request holds once its body has gone (at once when it has none). */
export function answerReleasing(request: Request, response: Response): Response {
  const releases = holds.get(request);
  if (releases === undefined) return response;
  holds.delete(request);
  return releasedWhenSent(response, () => {
    for (const release of releases) release();
  });
}

/** Calls what the request still holds: it will have no answer of its own (it never ran, or failed). */
export function releaseHeld(request: Request): void {
  const releases = holds.get(request);
  holds.delete(request);
  for (const release of releases ?? []) release();
}

/** `release`, made safe to call from every way a body can end: only the first call counts. */
function once(release: () => void): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release();
  };
}

/** The same answer, whose body calls `release` once it has been read to its end, failed, or been cancelled. */
export function releasedWhenSent(response: Response, release: () => void): Response {
  if (response.body === null) {
    release();
    return response;
  }
  const releaseOnce = once(release);
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await reader.read();
        if (chunk.done) {
          releaseOnce();
          controller.close();
        } else {
          controller.enqueue(chunk.value);
        }
      } catch (error) {
        releaseOnce();
        controller.error(error);
      }
    },
    cancel(reason) {
      releaseOnce();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * How much of a body already in memory is handed to the server at a time. A
 * server writes the next slice once the client has taken the last, so a whole
 * body handed over at once would sit in its write buffer, a copy, for as long
 * as a slow client takes to read it.
 */
export const ANSWER_SLICE_BYTES = 64 * 1024;

/**
 * An answer whose body is already whole in memory, handed to the server in
 * slices, with its Content-Length (the framing stays a length, not chunks):
 * `release` is called once the last slice has been taken or the body cancelled
 * (the connection went away), at once when there is no body. What the body held
 * is then given back when it has gone out, not when the handler returns.
 */
export function bytesReleasedWhenSent(body: Uint8Array | null, init: { status: number; headers: HeadersInit }, release: () => void): Response {
  const headers = new Headers(init.headers);
  headers.delete("transfer-encoding");
  if (body === null) {
    release();
    headers.delete("content-length");
    return new Response(null, { status: init.status, headers });
  }
  headers.set("content-length", String(body.byteLength));
  if (body.byteLength === 0) {
    release();
    return new Response(body as BodyInit, { status: init.status, headers });
  }
  const releaseOnce = once(release);
  let offset = 0;
  const slices = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const end = Math.min(offset + ANSWER_SLICE_BYTES, body.byteLength);
        controller.enqueue(body.subarray(offset, end));
        offset = end;
        if (end < body.byteLength) return;
        releaseOnce();
        controller.close();
      },
      cancel() {
        releaseOnce();
      },
    },
    // No slice is cut before it is asked for: the release then comes with the last one taken.
    { highWaterMark: 0 },
  );
  return new Response(slices, { status: init.status, headers });
}

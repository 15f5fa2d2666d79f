/**
 * What an answer holds until it has gone out: room in a budget of memory taken
 * for its content (a large page). The answer's bytes live until
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

/** The same answer, whose body calls `release` once it has been read to its end, failed, or been cancelled. */
export function releasedWhenSent(response: Response, release: () => void): Response {
  if (response.body === null) {
    release();
    return response;
  }
  let released = false;
  const releaseOnce = () => {
    if (released) return;
    released = true;
    release();
  };
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

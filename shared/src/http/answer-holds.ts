import type { BodyLease } from "./body-budget";

/**
 * What an answer holds until it has gone out: room in a budget of memory taken
 * for its content (a large page, a stored answer replayed). The answer's bytes live until
 * the gateway has read them, and it reads them only as fast as its client does,
 * so such room is given back when the answer's body has been sent whole, or
 * given up on, not when the handler returns.
 */
export type AnswerHold = Pick<BodyLease, "release"> &
  Partial<Pick<BodyLease, "sending" | "abandoned">> & {
    /** The answer's own source failed after it began (a database read mid-list): ours, not the client's doing. */
    failed?(error: unknown): void;
  };

const holds = new WeakMap<Request, AnswerHold[]>();

/** Gives `hold` to the request's answer: released once that answer is sent, or dropped. */
export function releaseWhenAnswered(request: Request, hold: AnswerHold): void {
  const held = holds.get(request);
  if (held) held.push(hold);
  else holds.set(request, [hold]);
}

/**
 * The answer to send, which releases what the request holds once its body has
 * gone (at once when it has none); `failed` hears of a body that failed after
 * it began, which is then cut.
 */
export function answerReleasing(request: Request, response: Response, failed?: (request: Request, error: unknown) => void): Response {
  const held = holds.get(request);
  if (held === undefined) return response;
  holds.delete(request);
  return releasedWhenSent(response, {
    failed: failed && ((error) => failed(request, error)),
    release: () => {
      for (const hold of held) hold.release();
    },
    sending: (answer) => {
      for (const hold of held) hold.sending?.(answer);
    },
    abandoned: () => {
      for (const hold of held) hold.abandoned?.();
    },
  });
}

/** Releases what the request still holds: it will have no answer of its own (it never ran, or failed). */
export function releaseHeld(request: Request): void {
  const held = holds.get(request);
  holds.delete(request);
  for (const hold of held ?? []) hold.release();
}

/**
 * How much of a body is handed to the server at a time. A server writes the
 * next slice once the client has taken the last, so a whole body handed over at
 * once would sit in its write buffer, a copy, for as long as a slow client
 * takes to read it; and a client that has taken no slice for a while has
 * stopped reading, as far as a full budget is concerned (body-budget.ts).
 */
export const ANSWER_SLICE_BYTES = 64 * 1024;

/** Where an answer's bytes come from: pieces of any size, undefined at the end. */
interface AnswerSource {
  next(): Promise<Uint8Array | undefined>;
  /** Nothing more will come, known without asking: the release then comes with the last slice. */
  ended(): boolean;
  cancel(): void;
}

/**
 * The source's bytes as a body handed out in slices of ANSWER_SLICE_BYTES, each
 * cut only when the server asks for it. `hold` is released once the last has
 * been taken, or the body failed, was cancelled or cut (then told first that
 * the answer was abandoned, or, when its source failed, of the failure: its
 * client gave nothing up); it is told of the answer in transit, stalled while
 * the server asks for no slice after the last.
 */
function sentInSlices(source: AnswerSource, hold: AnswerHold): ReadableStream<Uint8Array> {
  let over = false;
  const finish = () => {
    if (over) return;
    over = true;
    hold.release();
  };
  const giveUp = () => {
    if (!over) hold.abandoned?.();
    finish();
  };
  let rest: Uint8Array | undefined;
  let taking = false;
  let lastTaken = Date.now();
  let cutOff: (reason: undefined) => void = () => {};
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        cutOff = (reason) => controller.error(reason);
      },
      async pull(controller) {
        taking = true;
        try {
          while (rest === undefined || rest.byteLength === 0) {
            rest = await source.next();
            if (over) return;
            if (rest === undefined) {
              finish();
              return controller.close();
            }
          }
          const slice = rest.subarray(0, ANSWER_SLICE_BYTES);
          rest = rest.subarray(slice.byteLength);
          controller.enqueue(slice);
          if (rest.byteLength === 0 && source.ended()) {
            finish();
            controller.close();
          }
        } catch (error) {
          if (over) return;
          hold.failed?.(error);
          finish();
          source.cancel();
          // No reason, as for a cut: the failure is told to `failed`, not written by the server as a stack.
          controller.error(undefined);
        } finally {
          taking = false;
          lastTaken = Date.now();
        }
      },
      cancel() {
        giveUp();
        source.cancel();
      },
    },
    // No slice is cut before it is asked for: how long the next waits is how long the client takes nothing.
    { highWaterMark: 0 },
  );
  hold.sending?.({
    stalledSince: () => (over || taking ? undefined : lastTaken),
    cut: () => {
      if (over) return;
      giveUp();
      // Erroring the body is how a server is made to cut the connection. With no reason, Bun writes nothing
      // (an Error was a plain-text stack in the JSON log at every cut) and Deno one word, "undefined".
      cutOff(undefined);
      source.cancel();
    },
  });
  return body;
}

/** The same answer, whose body releases `hold` once it has been read to its end, failed, been cancelled or cut. */
export function releasedWhenSent(response: Response, hold: AnswerHold): Response {
  if (response.body === null) {
    hold.release();
    return response;
  }
  const reader = response.body.getReader();
  const source: AnswerSource = {
    next: async () => {
      const read = await reader.read();
      return read.done ? undefined : read.value;
    },
    ended: () => false,
    cancel: () => void reader.cancel().catch(() => {}),
  };
  return new Response(sentInSlices(source, hold), { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * An answer whose body is already whole in memory, handed to the server in
 * slices, with its Content-Length (the framing stays a length, not chunks):
 * `hold` is released once the last slice has been taken, the body cancelled
 * (the connection went away) or cut, at once when there is no body.
 */
export function bytesReleasedWhenSent(body: Uint8Array | null, init: { status: number; headers: HeadersInit }, hold: AnswerHold): Response {
  const headers = new Headers(init.headers);
  headers.delete("transfer-encoding");
  if (body === null) {
    hold.release();
    headers.delete("content-length");
    return new Response(null, { status: init.status, headers });
  }
  headers.set("content-length", String(body.byteLength));
  if (body.byteLength === 0) {
    hold.release();
    return new Response(body as BodyInit, { status: init.status, headers });
  }
  return new Response(bytesInSlices(body, hold), { status: init.status, headers });
}

const NOTHING_HELD: AnswerHold = { release: () => {} };

/**
 * A body already in memory as a stream of slices of it (views, not copies):
 * given to a runtime that copies what it is handed, a client that reads none
 * of it keeps one slice in memory, not the whole body.
 */
export function bytesInSlices(body: Uint8Array, hold: AnswerHold = NOTHING_HELD): ReadableStream<Uint8Array> {
  let handedOut = false;
  const source: AnswerSource = {
    next: async () => {
      if (handedOut) return undefined;
      handedOut = true;
      return body;
    },
    ended: () => handedOut,
    cancel: () => {},
  };
  return sentInSlices(source, hold);
}

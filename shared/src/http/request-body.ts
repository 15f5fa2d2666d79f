import { ApiError } from "../errors/api-error";
import type { IncomingRequest } from "../runtime/incoming-request";
import type { BodyLease } from "./body-budget";

type ChunkRead = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;

export function bodyTooLarge(limit: number): ApiError {
  return new ApiError("payload_too_large", `The request body exceeds the limit of ${limit} bytes for this operation.`, {
    details: { limit_bytes: limit },
  });
}

/**
 * The client stopped sending before its body was complete (it went away, or sent
 * fewer bytes than it declared). Answered 400, which nobody may read, and logged
 * as an ordinary request: it is not a failure of ours.
 */
export function bodyIncomplete(): ApiError {
  return ApiError.badRequest("The request body ended before it was complete.");
}

/** The body's declared Content-Length, when it is one (malformed ones never get this far). */
export function declaredLength(request: IncomingRequest): number | undefined {
  const value = request.headers.get("content-length");
  return value !== null && /^\d+$/.test(value) ? Number(value) : undefined;
}

export interface BodyLimits {
  /** Largest body accepted (413 past it). */
  limitBytes: number;
  /** Charged for every byte before it is passed on (503/429 when the budget is spent). */
  lease: BodyLease;
}

/**
 * Counts a body's bytes as they arrive. A declared length over the limit is
 * refused before anything is read, and is charged to the lease at once; a body
 * without one is charged chunk by chunk. A body shorter than it declared is
 * incomplete.
 */
function meter(request: IncomingRequest, { limitBytes, lease }: BodyLimits) {
  const declared = declaredLength(request);
  if (declared !== undefined && declared > limitBytes) throw bodyTooLarge(limitBytes);
  lease.take(declared ?? 0);
  let charged = declared ?? 0;
  let size = 0;
  return {
    add(bytes: number): void {
      size += bytes;
      if (size > limitBytes) throw bodyTooLarge(limitBytes);
      if (size > charged) {
        lease.take(size - charged);
        charged = size;
      }
    },
    end(): number {
      if (declared !== undefined && size < declared) throw bodyIncomplete();
      return size;
    },
  };
}

export interface StreamedBody {
  stream: ReadableStream<Uint8Array>;
  /** Why the stream stopped early, once it has: too large, over budget, or incomplete. */
  failure(): ApiError | undefined;
}

/**
 * The body passed on as it arrives, never held whole: it is read only as fast as
 * the receiver takes it, and the limits are enforced while it streams.
 */
export function streamBodyWithin(request: IncomingRequest, limits: BodyLimits): StreamedBody | null {
  const counter = meter(request, limits);
  if (!request.body) {
    counter.end();
    return null;
  }
  const reader = request.body.getReader();
  let failure: ApiError | undefined;
  // The receiver stopped reading (it answered, or gave up waiting): what is left unread is no failure of the client's.
  let cancelled = false;
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, error: unknown) => {
    if (cancelled) return;
    failure = error instanceof ApiError ? error : bodyIncomplete();
    reader.cancel().catch(() => {});
    controller.error(failure);
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let chunk: ChunkRead;
        try {
          chunk = await reader.read();
        } catch (error) {
          return fail(controller, error);
        }
        try {
          if (chunk.done) {
            counter.end();
            controller.close();
            return;
          }
          counter.add(chunk.value.byteLength);
        } catch (error) {
          return fail(controller, error);
        }
        controller.enqueue(chunk.value);
      },
      cancel: (reason) => {
        cancelled = true;
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, failure: () => failure };
}

/** The whole body in memory, within the limits; null when there is none. */
export async function readBodyWithin(request: IncomingRequest, limits: BodyLimits): Promise<Uint8Array | null> {
  const counter = meter(request, limits);
  if (!request.body) {
    counter.end();
    return null;
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  try {
    for (;;) {
      let chunk: ChunkRead;
      try {
        chunk = await reader.read();
      } catch {
        throw bodyIncomplete();
      }
      if (chunk.done) break;
      counter.add(chunk.value.byteLength);
      chunks.push(chunk.value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  }
  const size = counter.end();
  if (size === 0) return null;
  if (chunks.length === 1) return chunks[0]!;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

const received = new WeakMap<Request, Uint8Array | null>();

/** Hands a body that the service's front read (within its limits) to the JSON parser, without another copy. */
export function keepReceivedBody(request: Request, body: Uint8Array | null): void {
  received.set(request, body);
}

/** The body the front read, or else the request's own, read by `read` (whole, by default: in-process tests). */
export async function receivedBody(request: Request, read?: () => Promise<Uint8Array | null>): Promise<Uint8Array | null> {
  if (received.has(request)) {
    const body = received.get(request)!;
    received.delete(request);
    return body;
  }
  return read ? read() : new Uint8Array(await request.arrayBuffer());
}

/** The whole of a streamed body, for the few who need every byte before sending it on; the limits still hold. */
export async function readStreamedBody(body: StreamedBody): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.stream.getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      chunks.push(read.value);
      size += read.value.byteLength;
    }
  } catch (error) {
    throw body.failure() ?? error;
  }
  const whole = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return whole;
}

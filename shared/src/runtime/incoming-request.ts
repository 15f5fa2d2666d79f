import type { Answer } from "./plain-answer";

/**
 * What a handler reads of a request: a fetch `Request` has all of it, and so
 * does the request our HTTP/1.1 server hands over without building a fetch
 * `Request` first (one fewer object, its `Headers`, and a copy of every field
 * a request). A handler typed on this runs on any runtime; one that needs a
 * real `Request` (Elysia's router) asks `toFetchRequest` for it.
 */
export interface IncomingRequest {
  readonly method: string;
  /** Absolute, serialized as a fetch `Request` serializes it (dot segments resolved). */
  readonly url: string;
  readonly headers: FieldReader;
  readonly body: ReadableStream<Uint8Array> | null;
}

/** The reading side of fetch's `Headers`: names compared without case, repeated fields joined with ", ". */
export interface FieldReader {
  get(name: string): string | null;
  has(name: string): boolean;
  /** Each field once, its name lower-case and its repeated values joined. */
  forEach(callback: (value: string, name: string) => void): void;
  /** The field lines as sent, and their bytes, when the reader still has them (a fetch `Headers` has joined them). */
  linesAsSent?(): { lines: number; bytes: number };
}

/** A handler that reads only an `IncomingRequest` (a `Request` is one), and may answer with a plain answer. */
export type IncomingHandler = (request: IncomingRequest, clientAddress?: string) => Answer | Promise<Answer>;

/** A request that can give the fetch `Request` it stands for. */
interface ConvertibleRequest extends IncomingRequest {
  toFetchRequest(): Request;
}

/** The fetch `Request` an incoming request stands for: itself when it is one, else built (once, by the request, when it knows how). */
export function toFetchRequest(request: IncomingRequest): Request {
  if (request instanceof Request) return request;
  if (typeof (request as ConvertibleRequest).toFetchRequest === "function") return (request as ConvertibleRequest).toFetchRequest();
  const rawHeaders: string[] = [];
  request.headers.forEach((value, name) => rawHeaders.push(name, value));
  return fetchRequestOf(request.method, request.url, rawHeaders, request.body);
}

/** A fetch `Request` of fields given as name, value, name, value…; throws what `Request` throws (a method or value it cannot carry). */
export function fetchRequestOf(method: string, url: string, rawHeaders: string[], body: ReadableStream<Uint8Array> | null): Request {
  const headers = new Headers();
  for (let i = 0; i < rawHeaders.length; i += 2) headers.append(rawHeaders[i]!, rawHeaders[i + 1]!);
  return new Request(url, { method, headers, body, duplex: "half" } as RequestInit);
}

/** The same request under another method and without a body (HEAD answered as the GET it stands for). */
export function withMethod(request: IncomingRequest, method: string): IncomingRequest {
  return { method, url: request.url, headers: request.headers, body: null };
}

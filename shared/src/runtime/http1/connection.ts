import { ApiError } from "../../errors/api-error";
import { clientUnit } from "../../net/ip-address";
import { fetchRequestOf, type IncomingRequest } from "../incoming-request";
import { PlainAnswer, type Answer } from "../plain-answer";
import type { RequestHandler } from "../runtime";
import { ChunkedBody, ChunkedBodyError } from "./chunked-body";
import { chunkOf, EMPTY, HEAD_END, LAST_CHUNK } from "./fields";
import { Outgoing } from "./outgoing";
import { ParsedRequest } from "./parsed-request";
import { isRefusal, parseRequestHead, targetUrl, type RequestHead } from "./request-head";
import { responseHead } from "./response-head";

/** What a connection needs from the runtime's socket. */
export interface Wire {
  /** Writes what the socket takes now and returns how many bytes that was (the rest is the caller's to retry on drain). */
  write(data: Uint8Array): number;
  /** Half-closes (shutdown(2) of the write side): reading goes on until the peer closes, then the socket closes. */
  shutdown(): void;
  /** Closes the socket: what the kernel still holds for the peer goes on to it (unless input came that was never read). */
  end(): void;
  /** Cuts the connection (a reset): what the kernel still holds for the peer is lost. */
  terminate(): void;
  pause(): void;
  resume(): void;
  readonly remoteAddress: string;
}

export interface ConnectionSettings {
  handler: RequestHandler;
  /** A request head longer than this is answered 431. */
  maxHeaderBytes: number;
  /** True once the server is draining: every answer closes its connection. */
  isDraining(): boolean;
  /**
   * Counts `bytes` as what this connection holds of a head still incomplete
   * (0 once it ended); false when the server's budget for such heads, over
   * every connection, cannot take them.
   */
  holdHead(bytes: number): boolean;
  /**
   * Its answer is out and it only reads and drops input (the rest of a body
   * left unread, or what follows its last answer) until it closes (true), or
   * goes on serving (false).
   */
  lingering(on: boolean): void;
  /** The first bytes arrived: it is no longer a connection that never asked anything. */
  spoke(): void;
}

/** How long a connection refused to free room (503) reads and drops input before it closes: long enough for its request to arrive and be dropped, so that closing does not reset the 503 away. */
const REFUSAL_LINGER_MS = 200;

const TOO_MANY_INCOMPLETE = () =>
  new ApiError("service_unavailable", "Too many requests are arriving incomplete at once. Try again shortly.", { headers: { "retry-after": "1" } });

/** Body bytes (or pipelined requests) held for a handler that has not asked for them, before the socket is paused. */
const HELD_BYTES = 64 * 1024;
/** An unread body up to this is read and dropped after an early answer, keeping the connection; past it the connection closes. */
const DRAIN_MAX_BYTES = 256 * 1024;
/** A body of a declared length up to this is read whole from the handler's Response and sent in one write. */
const WHOLE_BODY_MAX_BYTES = 64 * 1024;
const CONTINUE = Buffer.from("HTTP/1.1 100 Continue\r\n\r\n");
const WITHOUT_REQUEST_BODY = new Set(["GET", "HEAD"]);
/** Methods a fetch `Request` keeps as they are: only these go to an incoming handler without one (any other gets the `Request`'s own checks). */
const PLAIN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** One request on the connection, from its head to the end of its answer and of its body. */
interface Exchange {
  head: RequestHead;
  /** Body bytes still to come, for a body of declared length. */
  remaining: number;
  chunked: ChunkedBody | undefined;
  bodyDone: boolean;
  /** The handler's body stream, when the request has one. */
  controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  /** The handler waits for body bytes. */
  wanted: boolean;
  /** Nobody reads the body any more (answered or cancelled): the rest of it is read and dropped. */
  dropping: boolean;
  continueSent: boolean;
  answered: boolean;
}

const wholeBody = (): Pick<Exchange, "remaining" | "chunked" | "bodyDone"> => ({ remaining: 0, chunked: undefined, bodyDone: true });

/**
 * One HTTP/1.1 connection: requests are read and answered one at a time, in the
 * order they came (pipelined ones wait in the buffer); a body is read from the
 * socket only as the handler reads it (the socket is paused past HELD_BYTES,
 * so an upload nobody reads stays in the kernel); an answer may go out before
 * its request's body was read, after which the rest of the body is read and
 * dropped (or the connection closed, past DRAIN_MAX_BYTES), so the client
 * always gets to read the answer.
 */
export class Http1Connection {
  private buffer: Buffer = EMPTY;
  private exchange: Exchange | undefined;
  private readonly outgoing: Outgoing;
  private paused = false;
  /** Close once the current exchange is over (Connection: close, HTTP/1.0, draining, a body left unread). */
  private closeAfter = false;
  /** The answer is out and the write side closed: input is read and dropped until the peer closes. */
  private ending = false;
  /** Refused to free room: it lingers REFUSAL_LINGER_MS, not the server's linger time. */
  private refused = false;
  private spoke = false;
  private peerEnded = false;
  closed = false;
  /** When the connection last did anything (for the idle timeout). */
  lastActivity = Date.now();
  /** When the first byte of a head still incomplete arrived (for the head timeout). */
  headStartedAt: number | undefined;
  endedAt: number | undefined;
  /** When an answer went out with its request's body still coming (it is read and dropped; bounded like a linger). */
  droppingSince: number | undefined;
  /** Bytes of an incomplete head counted in the server's budget. */
  private heldHead = 0;
  /** How much of the buffer was searched for the end of a head, without finding it. */
  private headScanned = 0;
  /** Where bytes arriving while others are held are gathered, with room to grow: each piece is copied once, not all held bytes again. */
  private store: Buffer = EMPTY;
  private storeFilled = 0;

  constructor(
    private readonly wire: Wire,
    private readonly settings: ConnectionSettings,
  ) {
    this.outgoing = new Outgoing(wire);
  }

  private unit: string | undefined;

  /** The client it counts against in the server's shares (clientUnit: an IPv4 address, an IPv6 /64). */
  get client(): string {
    return (this.unit ??= clientUnit(this.wire.remoteAddress));
  }

  /** An answer has been written on this connection: closing it outright could cut one its client has not read yet. */
  hasAnswered = false;

  /** It closes once its current exchange is over, or is closing now. */
  get closing(): boolean {
    return this.ending || this.closeAfter;
  }

  /** No request is in progress and nothing is buffered. */
  get idle(): boolean {
    return this.exchange === undefined && this.buffer.length === 0;
  }

  /** Idle, with no answer waiting for its client and no head begun: closing it loses nothing of ours. */
  get waitingForNothing(): boolean {
    return this.idle && this.stalledSince === undefined && this.headStartedAt === undefined;
  }

  onData(chunk: Buffer): void {
    this.lastActivity = Date.now();
    if (!this.spoke) {
      this.spoke = true;
      this.settings.spoke();
    }
    if (this.ending || this.closed) return;
    this.gather(chunk);
    this.pump();
  }

  onDrain(): void {
    this.outgoing.onDrain();
    // Pipelined requests wait while answers do: the next one starts once the client has taken them.
    if (!this.outgoing.pending) this.pump();
  }

  /** Since when an answer has been waiting for a client that takes none of it (for the idle timeout). */
  get stalledSince(): number | undefined {
    return this.outgoing.stalledSince;
  }

  /** The peer sent FIN: the requests it sent whole are still answered, then the connection closes. */
  onEnd(): void {
    this.peerEnded = true;
    if (this.ending) {
      // Both sides are done; an answer still in the kernel's buffers goes on to the client.
      if (this.endedAt !== undefined) this.wire.end();
      return;
    }
    this.pump();
  }

  onClose(): void {
    this.closed = true;
    this.holdHead(0);
    const exchange = this.exchange;
    // A body that arrived whole before the client went is still the request's, as if it had stayed.
    const arrivedWhole = exchange !== undefined && exchange.chunked === undefined && this.buffer.length >= exchange.remaining;
    if (exchange && !exchange.bodyDone && !arrivedWhole) this.failBody(exchange);
    this.outgoing.drop();
  }

  terminate(): void {
    this.wire.terminate();
  }

  /** Stops reading and closes: an answer the kernel still holds for a client that reads slowly is not cut. */
  close(): void {
    this.ending = true;
    this.wire.end();
  }

  /**
   * The server has as many connections as it keeps, all of them busy: this new
   * one is answered 503 and closed shortly after (REFUSAL_LINGER_MS: a refused
   * connection holds its file descriptor no longer).
   */
  refuseConnection(): void {
    this.refused = true;
    this.refuse(new ApiError("service_unavailable", "The server has too many connections open. Try again shortly.", { headers: { "retry-after": "1" } }));
  }

  /** The server gave this connection's incomplete head's room to a newer one: it is answered 503 and closed (shortly after when `toFreeRoom`, as refuseConnection). */
  refuseIncompleteHead(toFreeRoom = false): void {
    this.heldHead = 0;
    this.headStartedAt = undefined;
    this.refused ||= toFreeRoom;
    this.refuse(TOO_MANY_INCOMPLETE());
  }

  /** Closes an idle connection now; a busy one after its current answer. */
  closeWhenIdle(): void {
    this.closeAfter = true;
    if (this.idle) void this.finish();
  }

  /** Appends a chunk to what is held (the chunk itself when nothing is). */
  private gather(chunk: Buffer): void {
    const held = this.buffer;
    if (held.length === 0) {
      this.buffer = chunk;
      return;
    }
    const store = this.store;
    const endsTheStore = held.buffer === store.buffer && held.byteOffset + held.length === store.byteOffset + this.storeFilled;
    if (endsTheStore && this.storeFilled + chunk.length <= store.length) {
      // Bytes before storeFilled may have been handed out as a body's views: only bytes after it are written.
      chunk.copy(store, this.storeFilled);
      this.storeFilled += chunk.length;
      this.buffer = store.subarray(held.byteOffset - store.byteOffset, this.storeFilled);
      return;
    }
    const length = held.length + chunk.length;
    const grown = Buffer.allocUnsafe(Math.max(4096, 2 * length));
    held.copy(grown, 0);
    chunk.copy(grown, held.length);
    this.store = grown;
    this.storeFilled = length;
    this.buffer = grown.subarray(0, length);
  }

  /** Moves the connection on as far as the bytes it holds allow. */
  private pump(): void {
    while (!this.closed && !this.ending) {
      const exchange = this.exchange;
      if (exchange) {
        if (!exchange.bodyDone) this.readBody(exchange);
        if (!exchange.bodyDone || !exchange.answered) break;
        this.exchange = undefined;
        if (this.droppingSince !== undefined) {
          this.droppingSince = undefined;
          this.settings.lingering(false);
        }
        if (this.closeAfter) return void this.finish();
        continue;
      }
      // A client that sends requests without reading the answers would otherwise have them pile up here, unbounded.
      if (this.outgoing.pending) break;
      if (!this.startNextRequest()) break;
    }
    // An idle connection keeps no room it no longer needs.
    if (this.buffer.length === 0 && this.store !== EMPTY) {
      this.store = EMPTY;
      this.storeFilled = 0;
    }
    // Past HELD_BYTES nothing more is read until the handler, the next request or the client's reading of the answers takes what is held.
    const hold = (this.exchange !== undefined || this.outgoing.pending) && this.buffer.length >= HELD_BYTES;
    if (hold !== this.paused) {
      this.paused = hold;
      if (hold) this.wire.pause();
      else this.wire.resume();
    }
  }

  private startNextRequest(): boolean {
    let start = 0;
    // Empty lines before a request line are ignored (RFC 9112, 2.2).
    while (start + 1 < this.buffer.length && this.buffer[start] === 13 && this.buffer[start + 1] === 10) start += 2;
    if (start > 0) {
      this.buffer = this.buffer.subarray(start);
      this.headScanned = 0;
    }
    if (this.buffer.length === 0) {
      this.headStartedAt = undefined;
      this.holdHead(0);
      if (this.peerEnded || this.closeAfter) void this.finish();
      return false;
    }
    this.headStartedAt ??= Date.now();
    // A head arriving in pieces is searched only where it grew (and the 3 bytes before, where its end may begin).
    const grewFrom = this.headScanned;
    const end = this.buffer.indexOf(HEAD_END, Math.max(0, grewFrom - 3));
    this.headScanned = end === -1 ? this.buffer.length : 0;
    // A head whose lines end in a bare LF (or hold a bare CR) never reaches a CRLF CRLF: refused now, not at the head timeout.
    if (end === -1 && hasBareLineBreak(this.buffer, Math.max(0, grewFrom - 1))) {
      this.refuse(ApiError.badRequest("A line of the request head ends in a bare LF or holds a bare CR."));
      return false;
    }
    if (end === -1 || end > this.settings.maxHeaderBytes) {
      if (this.buffer.length > this.settings.maxHeaderBytes) {
        this.refuse(new ApiError("request_header_fields_too_large", "The request headers are too large."));
      } else if (!this.holdHead(this.buffer.length)) {
        this.refuse(TOO_MANY_INCOMPLETE());
      } else if (this.peerEnded) {
        void this.finish();
      }
      return false;
    }
    const text = this.buffer.toString("latin1", 0, end);
    this.buffer = this.buffer.subarray(end + 4);
    this.headStartedAt = undefined;
    this.holdHead(0);
    const head = parseRequestHead(text);
    if (isRefusal(head)) {
      this.refuse(ApiError.badRequest(head.refused));
      return false;
    }
    this.begin(head);
    return true;
  }

  private begin(head: RequestHead): void {
    const framing = head.framing;
    const exchange: Exchange = {
      head,
      remaining: framing.kind === "length" ? framing.length : 0,
      chunked: framing.kind === "chunked" ? new ChunkedBody() : undefined,
      bodyDone: framing.kind === "none",
      controller: undefined,
      wanted: false,
      dropping: false,
      continueSent: false,
      answered: false,
    };
    this.exchange = exchange;
    if (!head.keepAlive || this.settings.isDraining()) this.closeAfter = true;
    // A GET or HEAD with a body is framed by it but never reads it (fetch's Request cannot carry one): it is dropped.
    if (!exchange.bodyDone && WITHOUT_REQUEST_BODY.has(head.method)) exchange.dropping = true;
    const request = this.requestOf(exchange);
    const answer = request instanceof ApiError ? Promise.resolve(request.toResponse(crypto.randomUUID())) : this.handle(request);
    answer.then((response) => this.respond(exchange, response));
  }

  /**
   * The request the handler gets, or why there can be none. A handler of
   * incoming requests gets the parsed request itself when it is an ordinary one
   * (a plain method, a target that is a path); a fetch `Request` otherwise.
   */
  private requestOf(exchange: Exchange): IncomingRequest | ApiError {
    const { head } = exchange;
    if ("incoming" in this.settings.handler && PLAIN_METHODS.has(head.method) && head.target.charCodeAt(0) === 47) {
      // Serialized as a fetch Request would serialize it, so both see the same path (dot segments resolved).
      const url = URL.parse(targetUrl(head.target, head.host)!);
      if (url === null) return ApiError.badRequest("The request target is not a valid path.");
      return new ParsedRequest(head.method, url.href, head.rawHeaders, this.bodyOf(exchange));
    }
    return this.toRequest(exchange);
  }

  /** The fetch Request the handler gets, or why there can be none. */
  private toRequest(exchange: Exchange): Request | ApiError {
    const { head } = exchange;
    const url = targetUrl(head.target, head.host);
    if (url === null) return ApiError.badRequest("The request target is not a valid path.");
    let request: Request;
    try {
      request = fetchRequestOf(head.method, url, head.rawHeaders, this.bodyOf(exchange));
    } catch {
      // A method fetch refuses to carry (CONNECT, TRACE), or a value it cannot hold.
      return ApiError.badRequest(`The method ${head.method} cannot be served here.`);
    }
    // Bun's Request turns a method it does not know into GET, and a lowercase one into uppercase: neither may pass as another method.
    if (request.method !== head.method) return ApiError.badRequest(`The method ${head.method} is not one this server knows.`);
    return request;
  }

  private async handle(request: IncomingRequest): Promise<Answer> {
    const handler = this.settings.handler;
    try {
      // Only a fetch Request is ever handed to a fetch handler (requestOf builds one for it).
      return await ("incoming" in handler ? handler.incoming(request, this.wire.remoteAddress) : handler.fetch(request as Request, this.wire.remoteAddress));
    } catch {
      return new ApiError("internal_error", "Something went wrong on our side.").toResponse(crypto.randomUUID());
    }
  }

  /** The request's body, if it has one the handler may read. */
  private bodyOf(exchange: Exchange): ReadableStream<Uint8Array> | null {
    return exchange.bodyDone || exchange.dropping ? null : this.bodyStream(exchange);
  }

  /** The body as a stream that takes bytes from the connection only when it is read. */
  private bodyStream(exchange: Exchange): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          exchange.controller = controller;
        },
        pull: () => {
          if (this.closed) return this.readBody(exchange);
          if (exchange.head.expectsContinue && !exchange.continueSent && !exchange.answered) {
            exchange.continueSent = true;
            this.write(CONTINUE);
          }
          exchange.wanted = true;
          this.pump();
        },
        cancel: () => {
          exchange.dropping = true;
          exchange.controller = undefined;
          this.pump();
        },
      },
      // Nothing is read before the handler asks: a Request does not pull on its own.
      { highWaterMark: 0 },
    );
  }

  /** Hands the body bytes held to the handler (or drops them), as far as it asked. */
  private readBody(exchange: Exchange): void {
    if (!exchange.wanted && !exchange.dropping) return;
    if (this.buffer.length > 0) {
      let delivered = false;
      const deliver = (data: Uint8Array) => {
        if (exchange.dropping || data.byteLength === 0) return;
        exchange.controller?.enqueue(data);
        delivered = true;
      };
      let consumed: number;
      if (exchange.chunked) {
        try {
          consumed = exchange.chunked.feed(this.buffer, 0, deliver);
        } catch (error) {
          if (!(error instanceof ChunkedBodyError)) throw error;
          // Where this request ends is unknown, so no other request can be read from this connection.
          this.buffer = EMPTY;
          this.closeAfter = true;
          this.failBody(exchange, error);
          if (exchange.answered) void this.finish();
          return;
        }
        exchange.bodyDone = exchange.chunked.done;
      } else {
        consumed = Math.min(exchange.remaining, this.buffer.length);
        deliver(this.buffer.subarray(0, consumed));
        exchange.remaining -= consumed;
        exchange.bodyDone = exchange.remaining === 0;
      }
      this.buffer = consumed === this.buffer.length ? EMPTY : this.buffer.subarray(consumed);
      if (delivered) exchange.wanted = false;
      if (exchange.bodyDone && !exchange.dropping) {
        exchange.controller?.close();
        exchange.controller = undefined;
      }
    }
    // Everything that came was taken and the peer sends no more: the body stays cut.
    if (!exchange.bodyDone && (this.peerEnded || this.closed)) this.failBody(exchange);
  }

  /** The body will not arrive whole: whoever reads it learns so. */
  private failBody(exchange: Exchange, error = new Error("the client went away")): void {
    exchange.bodyDone = exchange.bodyDone || this.closed || this.peerEnded;
    const controller = exchange.controller;
    exchange.controller = undefined;
    exchange.dropping = true;
    try {
      controller?.error(error);
    } catch {
      // Already closed or errored.
    }
  }

  private async respond(exchange: Exchange, answer: Answer): Promise<void> {
    if (this.closed) {
      if (answer instanceof Response) await answer.body?.cancel().catch(() => {});
      return;
    }
    if (!exchange.bodyDone) {
      // The answer comes before the body was read. A client still waiting for "100 Continue" may never send
      // it, and a long body is not worth reading to keep the connection: both close after the answer.
      const waitingToSend = exchange.head.expectsContinue && !exchange.continueSent;
      if (waitingToSend || exchange.chunked !== undefined || exchange.remaining > DRAIN_MAX_BYTES) this.closeAfter = true;
    }
    if (this.settings.isDraining()) this.closeAfter = true;
    this.hasAnswered = true;
    const sent = answer instanceof PlainAnswer ? this.sendPlain(exchange, answer) : await this.send(exchange, answer);
    exchange.answered = true;
    if (!sent) return this.wire.terminate();
    if (!exchange.bodyDone) {
      this.droppingSince = Date.now();
      this.settings.lingering(true);
      this.failBody(exchange, new Error("the request was answered before its body was read"));
    }
    if (this.closeAfter && !exchange.bodyDone) return void this.finish();
    this.pump();
  }

  /** A plain answer, its body whole: head and body in one write, as a Response's whole body goes (a long body in one of its own). */
  private sendPlain(exchange: Exchange, answer: PlainAnswer): boolean {
    const head = exchange.head;
    const length = answer.body?.byteLength ?? 0;
    const options = { version: head.minorVersion, closing: this.closeAfter };
    if (head.method === "HEAD" || answer.status === 204 || answer.status === 304) {
      this.writeHead(responseHead(answer, { ...options, length: head.method === "HEAD" ? length : undefined }));
    } else if (length > WHOLE_BODY_MAX_BYTES) {
      // A long body goes in a write of its own: what the socket does not take yet waits as a view of the
      // answer's own bytes, not a copy (a body served to many clients that read none of it is held once).
      this.writeHead(responseHead(answer, { ...options, length }));
      this.write(answer.body!);
    } else {
      this.writeHead(responseHead(answer, { ...options, length }), answer.body ?? undefined);
    }
    return true;
  }

  /** Writes the answer; false when it could not be sent whole (the connection must then be cut). */
  private async send(exchange: Exchange, response: Response): Promise<boolean> {
    const { status } = response;
    const head = exchange.head;
    const version = head.minorVersion;
    if (head.method === "HEAD" || status === 204 || status === 304) {
      await response.body?.cancel().catch(() => {});
      // A HEAD answer keeps the length its GET would have had.
      const length = head.method === "HEAD" ? response.headers.get("content-length") : null;
      this.writeHead(responseHead(response, { version, closing: this.closeAfter, length: length ?? undefined }));
      return true;
    }
    if (!response.body) {
      this.writeHead(responseHead(response, { version, closing: this.closeAfter, length: 0 }));
      return true;
    }
    const declared = response.headers.get("content-length");
    const declaredLength = declared === null ? Number.POSITIVE_INFINITY : Number(declared);
    if (declaredLength <= WHOLE_BODY_MAX_BYTES) {
      let body: Uint8Array;
      try {
        body = await response.bytes();
      } catch {
        return false;
      }
      this.writeHead(responseHead(response, { version, closing: this.closeAfter, length: body.byteLength }), body);
      return true;
    }
    return this.stream(exchange, response, declared === null ? undefined : declaredLength);
  }

  /** A long or unknown-length answer, written at the pace the client reads it. */
  private async stream(exchange: Exchange, response: Response, declaredLength: number | undefined): Promise<boolean> {
    const reader = response.body!.getReader();
    const version = exchange.head.minorVersion;
    // A body that fails while its last piece waits for the client (an answer cut to make room) cuts the connection then, not at the client's next read.
    const failed = reader.closed.then(
      () => new Promise<void>(() => {}),
      () => {},
    );
    try {
      const first = await reader.read();
      const second = first.done ? first : await reader.read();
      if (second.done) {
        const body = first.value ?? new Uint8Array(0);
        if (declaredLength !== undefined && body.byteLength !== declaredLength) return false;
        this.writeHead(responseHead(response, { version, closing: this.closeAfter, length: body.byteLength }), body);
        return true;
      }
      // Without a length, HTTP/1.1 chunks the body; HTTP/1.0 can only end it by closing.
      const chunked = declaredLength === undefined && version === 1;
      if (declaredLength === undefined && !chunked) this.closeAfter = true;
      this.writeHead(responseHead(response, { version, closing: this.closeAfter, length: declaredLength, chunked }));
      let sent = 0;
      let next = first;
      for (;;) {
        if (this.closed) return false;
        const data = next.value!;
        sent += data.byteLength;
        if (declaredLength !== undefined && sent > declaredLength) return false;
        const ready = chunked ? this.writeChunk(data) : this.write(data);
        if (!ready) await Promise.race([this.writable(), failed]);
        next = next === first ? second : await reader.read();
        if (next.done) break;
      }
      if (declaredLength !== undefined && sent !== declaredLength) return false;
      if (chunked) this.write(LAST_CHUNK);
      return true;
    } catch {
      // The body failed half-way (its source went away): the client must not take a cut body as whole.
      return false;
    } finally {
      reader.cancel().catch(() => {});
    }
  }

  private writeChunk(data: Uint8Array): boolean {
    if (data.byteLength === 0) return true;
    return this.write(chunkOf(data));
  }

  /** An answer's head, and its body in the same write when given. */
  private writeHead(head: string, body?: Uint8Array): boolean {
    if (this.closed) return true;
    this.lastActivity = Date.now();
    return this.outgoing.writeHead(head, body);
  }

  /** Writes now what the socket takes and keeps the rest for its drain; false when something is waiting. */
  private write(data: Uint8Array): boolean {
    if (this.closed) return true;
    this.lastActivity = Date.now();
    return this.outgoing.write(data);
  }

  private writable(): Promise<void> {
    return this.closed ? Promise.resolve() : this.outgoing.writable();
  }

  /** Counts `bytes` of an incomplete head in the server's budget instead of what was counted; false when it cannot take them. */
  private holdHead(bytes: number): boolean {
    if (bytes === this.heldHead) return true;
    if (!this.settings.holdHead(bytes)) return false;
    this.heldHead = bytes;
    return true;
  }

  /** A head that cannot be read: its answer, then the connection closes (where the next request would start is unknown). */
  private refuse(error: ApiError): void {
    this.buffer = EMPTY;
    this.headScanned = 0;
    this.holdHead(0);
    this.closeAfter = true;
    const head: RequestHead = { method: "GET", target: "/", minorVersion: 1, rawHeaders: [], host: undefined, framing: { kind: "none" }, keepAlive: false, expectsContinue: false };
    const exchange: Exchange = { head, ...wholeBody(), controller: undefined, wanted: false, dropping: true, continueSent: false, answered: false };
    this.exchange = exchange;
    void this.respond(exchange, error.toResponse(crypto.randomUUID()));
  }

  /**
   * Closes the write side once everything written has gone out, and reads and
   * drops what still comes until the peer closes (the server's sweep cuts it
   * after a while): closing outright with unread input would reset the
   * connection and could destroy the answer before the client read it.
   */
  private async finish(): Promise<void> {
    if (this.ending || this.closed) return;
    this.ending = true;
    this.buffer = EMPTY;
    this.headScanned = 0;
    this.holdHead(0);
    if (this.paused) {
      this.paused = false;
      this.wire.resume();
    }
    await this.writable();
    if (this.closed) return;
    this.endedAt = Date.now();
    if (this.peerEnded) return this.wire.end();
    this.wire.shutdown();
    this.settings.lingering(true);
    if (this.refused) (setTimeout(() => this.close(), REFUSAL_LINGER_MS) as { unref?: () => void }).unref?.();
  }
}

/** Whether `bytes` from `from` hold an LF not after a CR, or a CR before anything but an LF (a CR at the end may yet be followed by one). */
function hasBareLineBreak(bytes: Uint8Array, from: number): boolean {
  for (let i = bytes.indexOf(10, from); i !== -1; i = bytes.indexOf(10, i + 1)) if (i === 0 || bytes[i - 1] !== 13) return true;
  for (let i = bytes.indexOf(13, from); i !== -1 && i + 1 < bytes.length; i = bytes.indexOf(13, i + 1)) if (bytes[i + 1] !== 10) return true;
  return false;
}

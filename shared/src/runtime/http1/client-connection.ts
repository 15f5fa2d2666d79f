import { HOP_ANSWER_HEADERS, upstreamTimeout, WHOLE_ANSWER_MAX_BYTES, type UpstreamAnswer, type UpstreamRequest } from "../upstream";
import { ChunkedBody } from "./chunked-body";
import type { Wire } from "./connection";
import { chunkOf, EMPTY, HEAD_END, LAST_CHUNK } from "./fields";
import { Outgoing } from "./outgoing";
import type { HopDeadline } from "./hop-deadline";
import { BodyIdleWatch } from "../body-idle-watch";
import { readResponseHead, type AnswerFraming } from "./response-head-reader";

/** What the client needs from the runtime's socket. */
export type ClientWire = Pick<Wire, "write" | "terminate" | "pause" | "resume">;

/** What the runtime's socket tells its connection. */
export interface SocketEvents {
  onData(chunk: Uint8Array): void;
  onDrain(): void;
  /** Closed by either side, or the peer's FIN (the client never half-closes, so it is the end either way). */
  onClose(): void;
}

/** The connection closed, or gave bytes that are no answer, before the answer was whole. */
export class AnswerLost extends Error {
  constructor(
    message: string,
    /** Not one byte of the answer had come: on a reused connection, the service most likely closed it as idle before it saw the request. */
    readonly beforeAnswer: boolean,
    /** Not one byte of the request was written: the service cannot have seen it. */
    readonly notSent = false,
  ) {
    super(message);
  }
}

/** An answer head past this is not taken (the services' are a few hundred bytes). */
const MAX_HEAD_BYTES = 64 * 1024;
/** A body of a known length up to this goes in the same write as the head. */
const ONE_WRITE_BODY_MAX_BYTES = 16 * 1024;
/** A streamed answer's bytes held for a reader that has not asked for them, before the socket is paused. */
const HELD_ANSWER_BYTES = 64 * 1024;
/** Methods whose request carries a body by definition: without one, its length is still said (RFC 9110, 8.6). */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

/** One request and its answer on the connection. */
interface Exchange {
  request: UpstreamRequest;
  /** Ended here once the answer is given and over, or failed after it was given; the client ends it when the answer fails. */
  deadline: HopDeadline;
  resolve: (answer: UpstreamAnswer) => void;
  reject: (error: unknown) => void;
  /** The promise is settled: what happens from here on is the answer body's (or nobody's). */
  settled: boolean;
  /** Some byte of the answer (or of an interim one) came. */
  answering: boolean;
  status: number;
  headers: [string, string][];
  framing: AnswerFraming | undefined;
  keepAlive: boolean;
  /** Answer body bytes still to come, for a declared length. */
  remaining: number;
  chunked: ChunkedBody | undefined;
  /** The streamed answer body, while it is read. */
  controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  requestSent: boolean;
  bodyReader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** What the service had to answer in: once a streamed answer's head came, the most its body may keep the gateway waiting. */
  budgetMs: number;
  /** A streamed body's wait for the service (the deadline is over once its head came). */
  idle: BodyIdleWatch | undefined;
}

/**
 * One keep-alive connection to a service, carrying one request at a time
 * (never pipelined: a service's Bun.serve closes a connection that sends a
 * request while the previous one's handler runs). The request body goes out
 * at the socket's pace while the answer is read, so an answer sent before the
 * body was (a 413) is read too; a streamed answer body is read from the
 * socket only as fast as it is read from here.
 */
export class ClientConnection implements SocketEvents {
  private wire!: ClientWire;
  private outgoing!: Outgoing;
  private buffer: Buffer = EMPTY;
  private current: Exchange | undefined;
  private paused = false;
  closed = false;
  /** Requests sent on it so far. */
  uses = 0;
  idleSince = 0;

  constructor(
    private readonly host: string,
    /** Told when the connection can take the next request, or has closed (then `closed` is true). */
    private readonly onFree: (connection: ClientConnection) => void,
  ) {}

  attach(wire: ClientWire): void {
    this.wire = wire;
    this.outgoing = new Outgoing(wire);
  }

  /** Sends the request and resolves with its answer (see UpstreamAnswer); the connection must be free. */
  send(request: UpstreamRequest, deadline: HopDeadline): Promise<UpstreamAnswer> {
    this.uses++;
    return new Promise((resolve, reject) => {
      const exchange: Exchange = {
        request,
        deadline,
        resolve,
        reject,
        settled: false,
        answering: false,
        status: 0,
        headers: [],
        framing: undefined,
        keepAlive: true,
        remaining: 0,
        chunked: undefined,
        controller: undefined,
        requestSent: false,
        bodyReader: undefined,
        budgetMs: request.deadline - performance.now(),
        idle: undefined,
      };
      if (deadline.expired) return reject(upstreamTimeout());
      // Closed by its service between being taken from the pool and now.
      if (this.closed) return reject(new AnswerLost("The connection to the service closed before the request was sent.", true, true));
      deadline.during(() => this.fail(exchange, upstreamTimeout()));
      this.current = exchange;
      this.writeRequest(exchange);
    });
  }

  onData(chunk: Uint8Array): void {
    const exchange = this.current;
    // Bytes nobody asked for: whatever they are, the next answer could not be told from them.
    if (exchange === undefined) return this.destroy();
    exchange.answering = true;
    this.buffer = this.buffer.length === 0 ? (chunk as Buffer) : Buffer.concat([this.buffer, chunk]);
    this.read(exchange);
  }

  onDrain(): void {
    this.outgoing.onDrain();
  }

  onClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.outgoing?.drop();
    const exchange = this.current;
    if (exchange !== undefined) {
      if (exchange.framing?.kind === "until-close" && this.buffer.length === 0) this.answerEnded(exchange);
      else this.fail(exchange, new AnswerLost("The connection to the service closed before the answer was whole.", !exchange.answering));
    }
    this.onFree(this);
  }

  /** Closes the connection, ending what it carries (the socket's close event follows, or is taken as come). */
  destroy(): void {
    if (this.closed) return;
    this.wire.terminate();
    this.onClose();
  }

  private writeRequest(exchange: Exchange): void {
    const { request } = exchange;
    let head = `${request.method} ${request.pathAndQuery} HTTP/1.1\r\nhost: ${this.host}\r\n`;
    const headers = request.headers;
    for (let i = 0; i < headers.length; i++) head += `${headers[i]![0]}: ${headers[i]![1]}\r\n`;
    const body = request.body;
    if (body instanceof ReadableStream) {
      this.outgoing.writeHead(`${head}transfer-encoding: chunked\r\n\r\n`);
      void this.streamBody(exchange, body);
      return;
    }
    exchange.requestSent = true;
    if (body === null) {
      if (BODY_METHODS.has(request.method)) head += "content-length: 0\r\n";
      this.outgoing.writeHead(`${head}\r\n`);
      return;
    }
    head += `content-length: ${body.byteLength}\r\n\r\n`;
    if (body.byteLength > ONE_WRITE_BODY_MAX_BYTES) {
      this.outgoing.writeHead(head);
      this.outgoing.write(body);
      return;
    }
    this.outgoing.writeHead(head, body);
  }

  /** Sends the body chunked as it is read, no faster than the socket takes it. */
  private async streamBody(exchange: Exchange, body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    exchange.bodyReader = reader;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (this.current !== exchange || this.closed) return;
        if (done) break;
        if (value.byteLength === 0) continue;
        if (!this.outgoing.write(chunkOf(value))) await this.outgoing.writable();
      }
    } catch (error) {
      // The client's body failed (too large, client gone): the service must not take what came as the whole body.
      if (this.current === exchange) this.fail(exchange, error);
      return;
    } finally {
      exchange.bodyReader = undefined;
    }
    this.outgoing.write(LAST_CHUNK);
    exchange.requestSent = true;
  }

  /** Moves the answer on as far as the bytes held allow. */
  private read(exchange: Exchange): void {
    try {
      while (exchange.framing === undefined) {
        const end = this.buffer.indexOf(HEAD_END);
        if (end === -1) {
          if (this.buffer.length > MAX_HEAD_BYTES) throw new AnswerLost("The service's answer head is too large.", false);
          return;
        }
        const head = readResponseHead(this.buffer.toString("latin1", 0, end));
        this.buffer = this.buffer.subarray(end + 4);
        // An interim answer (100 Continue, 103 Early Hints) is passed over; a switch of protocols is never asked for.
        if (head.status === 101) throw new AnswerLost("The service switched protocols unasked.", false);
        if (head.status < 200) continue;
        this.begin(exchange, head.status, head.rawHeaders, exchange.request.method === "HEAD" ? { kind: "none" } : head.framing, head.keepAlive);
        if (exchange.framing!.kind === "none") return this.answerWhole(exchange, null);
      }
      if (exchange.controller === undefined) {
        const length = exchange.remaining;
        if (this.buffer.length < length) return;
        // A Buffer from the socket: never a SharedArrayBuffer.
        const body = this.buffer.subarray(0, length) as Uint8Array<ArrayBuffer>;
        this.buffer = this.buffer.subarray(length);
        return this.answerWhole(exchange, body);
      }
      this.readStreamed(exchange);
    } catch (error) {
      this.fail(exchange, error instanceof AnswerLost ? error : new AnswerLost(`The service's answer is malformed: ${(error as Error).message}`, false));
    }
  }

  private begin(exchange: Exchange, status: number, rawHeaders: string[], framing: AnswerFraming, keepAlive: boolean): void {
    const headers: [string, string][] = [];
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!.toLowerCase();
      if (!HOP_ANSWER_HEADERS.has(name)) headers.push([name, rawHeaders[i + 1]!]);
    }
    exchange.status = status;
    exchange.headers = headers;
    exchange.framing = framing;
    exchange.keepAlive = keepAlive;
    if (framing.kind === "length") exchange.remaining = framing.length;
    if (framing.kind === "none" || (framing.kind === "length" && framing.length <= WHOLE_ANSWER_MAX_BYTES)) return;
    if (framing.kind === "chunked") exchange.chunked = new ChunkedBody();
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          exchange.controller = controller;
        },
        pull: () => {
          exchange.idle?.waiting();
          if (this.paused && this.current === exchange) {
            this.paused = false;
            this.wire.resume();
          }
        },
        // Nobody reads the rest: where it ends can only be learnt by reading it, so the connection goes.
        cancel: () => {
          exchange.controller = undefined;
          exchange.idle?.stop();
          if (this.current === exchange) this.destroy();
        },
      },
      { highWaterMark: HELD_ANSWER_BYTES, size: (chunk) => chunk!.byteLength },
    );
    // From here the body is read at its reader's pace: only the service's own silence fails it.
    exchange.deadline.end();
    exchange.idle = new BodyIdleWatch(exchange.budgetMs, () => this.fail(exchange, upstreamTimeout()));
    exchange.settled = true;
    exchange.resolve({ status, headers, body });
  }

  private readStreamed(exchange: Exchange): void {
    const controller = exchange.controller!;
    const framing = exchange.framing!;
    let consumed: number;
    if (framing.kind === "chunked") {
      consumed = exchange.chunked!.feed(this.buffer, 0, (data) => controller.enqueue(data));
    } else {
      consumed = framing.kind === "length" ? Math.min(exchange.remaining, this.buffer.length) : this.buffer.length;
      if (consumed > 0) controller.enqueue(this.buffer.subarray(0, consumed));
      exchange.remaining -= consumed;
    }
    this.buffer = consumed === this.buffer.length ? EMPTY : this.buffer.subarray(consumed);
    const done = framing.kind === "chunked" ? exchange.chunked!.done : framing.kind === "length" && exchange.remaining === 0;
    if (done) return this.answerEnded(exchange);
    if ((controller.desiredSize ?? 1) <= 0) {
      exchange.idle!.satisfied();
      if (!this.paused) {
        this.paused = true;
        this.wire.pause();
      }
    } else if (consumed > 0) {
      exchange.idle!.progressed();
    }
  }

  private answerWhole(exchange: Exchange, body: Uint8Array<ArrayBuffer> | null): void {
    exchange.settled = true;
    exchange.resolve({ status: exchange.status, headers: exchange.headers, body });
    this.answerEnded(exchange);
  }

  /** The answer came whole: the connection carries the next request if nothing about this one is left over. */
  private answerEnded(exchange: Exchange): void {
    const controller = exchange.controller;
    exchange.controller = undefined;
    controller?.close();
    exchange.deadline.end();
    exchange.idle?.stop();
    // The service answered without waiting for the whole body: the rest is not worth sending, and the connection goes with it.
    if (!exchange.requestSent) return this.fail(exchange, new AnswerLost("The service answered before the request body was sent.", false));
    this.release(exchange);
  }

  private release(exchange: Exchange): void {
    if (this.current !== exchange) return;
    this.current = undefined;
    // Bytes past the answer belong to no request.
    if (!exchange.keepAlive || this.buffer.length > 0 || this.closed) return this.destroy();
    if (this.paused) {
      this.paused = false;
      this.wire.resume();
    }
    this.idleSince = Date.now();
    this.onFree(this);
  }

  /** Ends the exchange with `error`: its promise, or its answer body's reader, learns it; the connection goes. */
  private fail(exchange: Exchange, error: unknown): void {
    if (this.current !== exchange) return;
    this.current = undefined;
    exchange.idle?.stop();
    if (exchange.settled) exchange.deadline.end();
    else {
      exchange.settled = true;
      exchange.reject(error);
    }
    const controller = exchange.controller;
    exchange.controller = undefined;
    try {
      controller?.error(error);
    } catch {
      // Already closed or errored.
    }
    exchange.bodyReader?.cancel(error).catch(() => {});
    this.destroy();
  }
}

import type { SocketEvents } from "./http1/client-connection";
import type { Wire } from "./http1/connection";
import { SCRATCH_BYTES } from "./http1/outgoing";

/** A TCP connection whose reads and writes are promises (Deno.Conn). */
export interface PromiseSocket {
  read(into: Uint8Array): Promise<number | null>;
  write(data: Uint8Array): Promise<number>;
  close(): void;
  /** Half-closes: the peer reads the end, and may go on writing. */
  closeWrite?(): Promise<void>;
}

/** A server's connection also hears of the peer's FIN, which does not close it: the requests sent whole are still answered. */
export interface PromiseSocketEvents extends SocketEvents {
  onEnd?(): void;
}

/** Bytes taken for writing before `write` takes no more: the caller then waits for the drain, as with a socket's buffer. */
const WRITE_QUEUE_BYTES = 256 * 1024;
/**
 * Each connection holds a buffer of this for the read it always has pending.
 * A server's connections are many and mostly idle: they read in smaller pieces
 * (400 connections held 65 MiB with 64 KiB each, 35 MiB with 16 KiB).
 */
const READ_BYTES = 64 * 1024;
export const SERVER_READ_BYTES = 16 * 1024;

/**
 * A promise-based socket as the wire of our HTTP/1.1 client and server, the
 * way Bun's sockets are: `write` takes what fits now (a head is copied: the
 * caller's buffer is the next head's) and reports a drain once what it took
 * has gone out; every chunk read goes to `onData` as a Buffer of its own. The end of
 * input goes to `onEnd` when there is one (a server's connection: it still
 * answers), else closes it; `shutdown` and `end` act once what was written
 * has gone out; a failed read or write, and `terminate`, close it at once;
 * `onClose` comes once.
 */
export class PromiseSocketWire implements Wire {
  private queue: Uint8Array[] = [];
  private queued = 0;
  private writing = false;
  /** `write` left some bytes out: the writer waits for `onDrain`. */
  private owesDrain = false;
  private paused = false;
  private resumed: (() => void) | undefined;
  private closed = false;
  /** What to do once the queue has gone out: half-close, or close. */
  private after: "shutdown" | "end" | undefined;

  constructor(
    private readonly socket: PromiseSocket,
    private readonly events: PromiseSocketEvents,
    options: { remoteAddress?: string; readBytes?: number } = {},
  ) {
    this.remoteAddress = options.remoteAddress ?? "";
    void this.readLoop(options.readBytes ?? READ_BYTES);
  }

  readonly remoteAddress: string;

  write(data: Uint8Array): number {
    if (this.closed) return 0;
    const room = WRITE_QUEUE_BYTES - this.queued;
    const taken = data.byteLength <= room ? data.byteLength : Math.max(0, room);
    if (taken < data.byteLength) this.owesDrain = true;
    if (taken === 0) return 0;
    // What may be the shared head buffer, which the next head overwrites, is copied; a longer body is
    // taken as it is (a documentation bundle asked for on 400 connections is then held once, not 400 times).
    const part = data.subarray(0, taken);
    this.queue.push(data.byteLength <= SCRATCH_BYTES ? new Uint8Array(part) : part);
    this.queued += taken;
    if (!this.writing) void this.writeLoop();
    return taken;
  }

  terminate(): void {
    this.close();
  }

  shutdown(): void {
    this.finish("shutdown");
  }

  end(): void {
    this.finish("end");
  }

  private finish(how: "shutdown" | "end"): void {
    if (this.after !== "end") this.after = how;
    if (!this.writing) void this.afterWrites();
  }

  private async afterWrites(): Promise<void> {
    const how = this.after;
    if (how === undefined || this.closed) return;
    if (how === "end" || !this.socket.closeWrite) return this.close();
    this.after = undefined;
    await this.socket.closeWrite().catch(() => this.close());
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    const resumed = this.resumed;
    this.resumed = undefined;
    resumed?.();
  }

  private async writeLoop(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0 && !this.closed) {
        // What came while the last write ran goes out in one write.
        const chunk = this.queue.length === 1 ? this.queue[0]! : Buffer.concat(this.queue);
        this.queue = [];
        for (let at = 0; at < chunk.byteLength; ) at += await this.socket.write(chunk.subarray(at));
        this.queued -= chunk.byteLength;
      }
    } catch {
      this.close();
      return;
    } finally {
      this.writing = false;
    }
    if (this.owesDrain && !this.closed) {
      this.owesDrain = false;
      this.events.onDrain();
    }
    if (!this.writing && this.queue.length === 0) void this.afterWrites();
  }

  private async readLoop(readBytes: number): Promise<void> {
    const into = new Uint8Array(readBytes);
    try {
      for (;;) {
        if (this.paused) await new Promise<void>((resolve) => (this.resumed = resolve));
        if (this.closed) return;
        const read = await this.socket.read(into);
        if (this.closed) return;
        if (read === null) {
          if (!this.events.onEnd) break;
          return this.events.onEnd();
        }
        this.events.onData(Buffer.from(into.subarray(0, read)));
      }
    } catch {
      // Reset by the peer, or closed here while a read waited: the close below says so.
    }
    this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    try {
      this.socket.close();
    } catch {
      // Already closed.
    }
    this.resume();
    // Told after the caller's turn, as a socket's close event is: a server may cut a connection while it is still opening it.
    queueMicrotask(() => this.events.onClose());
  }
}

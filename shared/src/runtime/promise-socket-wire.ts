import type { ClientWire, SocketEvents } from "./http1/client-connection";

/** A TCP connection whose reads and writes are promises (Deno.Conn). */
export interface PromiseSocket {
  read(into: Uint8Array): Promise<number | null>;
  write(data: Uint8Array): Promise<number>;
  close(): void;
}

/** Bytes taken for writing before `write` takes no more: the caller then waits for the drain, as with a socket's buffer. */
const WRITE_QUEUE_BYTES = 256 * 1024;
const READ_BYTES = 64 * 1024;

/**
 * A promise-based socket as the wire of the HTTP/1.1 client, the way Bun's
 * sockets are: `write` takes what fits now (copied: the caller's buffer is
 * the next head's) and reports a drain once what it took has gone out; every
 * chunk read goes to `onData` as a Buffer of its own; the end of input, a
 * failed read or write, and `terminate` all close it, and `onClose` comes once.
 */
export class PromiseSocketWire implements ClientWire {
  private queue: Uint8Array[] = [];
  private queued = 0;
  private writing = false;
  /** `write` left some bytes out: the writer waits for `onDrain`. */
  private owesDrain = false;
  private paused = false;
  private resumed: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly socket: PromiseSocket,
    private readonly events: SocketEvents,
  ) {
    void this.readLoop();
  }

  write(data: Uint8Array): number {
    if (this.closed) return 0;
    const room = WRITE_QUEUE_BYTES - this.queued;
    const taken = data.byteLength <= room ? data.byteLength : Math.max(0, room);
    if (taken < data.byteLength) this.owesDrain = true;
    if (taken === 0) return 0;
    // A copy: Buffer's slice would be a view of a buffer its owner reuses.
    this.queue.push(new Uint8Array(data.subarray(0, taken)));
    this.queued += taken;
    if (!this.writing) void this.writeLoop();
    return taken;
  }

  terminate(): void {
    this.close();
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
  }

  private async readLoop(): Promise<void> {
    const into = new Uint8Array(READ_BYTES);
    try {
      for (;;) {
        if (this.paused) await new Promise<void>((resolve) => (this.resumed = resolve));
        if (this.closed) return;
        const read = await this.socket.read(into);
        if (read === null || this.closed) break;
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
    this.events.onClose();
  }
}

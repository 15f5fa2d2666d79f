import type { Wire } from "./connection";
import { headWithBody } from "./fields";

/**
 * Heads (and the short bodies written with them) are encoded into this one
 * buffer and written from it: the socket copies what it takes at once, so a
 * head costs no allocation of its own unless the socket leaves some of it.
 */
export const SCRATCH_BYTES = 16 * 1024;
const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);

/**
 * What is written to a socket that takes only what fits now: the rest waits,
 * in order, for the socket's drain, and a writer that must not get ahead
 * (a streamed body) waits for it too.
 */
export class Outgoing {
  private unsent: Uint8Array[] = [];
  private waiters: (() => void)[] = [];
  /** When the socket last took bytes while some were waiting: how long a peer that stopped reading has been stuck. */
  private movedAt = 0;

  constructor(private readonly wire: Pick<Wire, "write">) {}

  /** Bytes are waiting for the socket's drain. */
  get pending(): boolean {
    return this.unsent.length > 0;
  }

  /** Since when nothing waiting has gone out, while something waits. */
  get stalledSince(): number | undefined {
    return this.unsent.length > 0 ? this.movedAt : undefined;
  }

  /** Writes now what the socket takes and keeps the rest for its drain; false when something is waiting. */
  write(data: Uint8Array): boolean {
    if (this.unsent.length > 0) {
      this.unsent.push(data);
      return false;
    }
    const written = this.wire.write(data);
    if (written >= data.byteLength) return true;
    this.unsent.push(data.subarray(Math.max(0, written)));
    this.movedAt = Date.now();
    return false;
  }

  /** A head (latin1 text, its empty line included) and a body after it, in one write. */
  writeHead(head: string, body?: Uint8Array): boolean {
    const length = head.length + (body?.byteLength ?? 0);
    if (this.unsent.length > 0 || length > SCRATCH_BYTES) return this.write(headWithBody(head, body));
    scratch.write(head, 0, "latin1");
    if (body) scratch.set(body, head.length);
    const written = this.wire.write(scratch.subarray(0, length));
    if (written >= length) return true;
    // The rest is kept as a copy: the buffer is the next head's.
    this.unsent.push(Buffer.from(scratch.subarray(Math.max(0, written), length)));
    this.movedAt = Date.now();
    return false;
  }

  /** Called on the socket's drain. */
  onDrain(): void {
    while (this.unsent.length > 0) {
      const next = this.unsent[0]!;
      const written = this.wire.write(next);
      if (written > 0) this.movedAt = Date.now();
      if (written < next.byteLength) {
        this.unsent[0] = next.subarray(Math.max(0, written));
        return;
      }
      this.unsent.shift();
    }
    this.wake();
  }

  /** Resolves once everything written so far is in the socket (or the socket is gone). */
  writable(): Promise<void> {
    if (this.unsent.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The socket closed: what waits will never go, and nobody waits for it any more. */
  drop(): void {
    this.unsent = [];
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

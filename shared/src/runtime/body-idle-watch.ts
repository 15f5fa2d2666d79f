import { watchDeadline } from "../http/deadline-watch";

/**
 * A streamed answer from a service is bound by time only while the gateway
 * waits for its next bytes: a client reading a 10 MiB page at 300 KB/s takes
 * half a minute and is not the service's delay (bound by the deadline of the
 * whole request, such an answer was cut at 10 s, even one of a write already
 * committed). So once the answer's head has come, its body fails when the
 * service has sent nothing of it for `idleMs` while the gateway waited for more.
 */
export class BodyIdleWatch {
  private waitingSince: number | undefined = performance.now();
  private unwatch: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly idleMs: number,
    private readonly onIdle: () => void,
  ) {
    this.arm(performance.now() + idleMs);
  }

  /** Bytes came, or the reader has all it wants for now: no wait is running. */
  satisfied(): void {
    this.waitingSince = undefined;
  }

  /** The gateway waits for the service's next bytes from now on (unless it already did). */
  waiting(): void {
    this.waitingSince ??= performance.now();
  }

  /** Bytes came and the gateway wants more: a new wait starts. */
  progressed(): void {
    this.waitingSince = performance.now();
  }

  stop(): void {
    this.stopped = true;
    this.unwatch?.();
  }

  /** One watch per idle period, not one per piece of the body: when it fires, a wait that began since is given its full time. */
  private arm(at: number): void {
    this.unwatch = watchDeadline(at, () => {
      if (this.stopped) return;
      const now = performance.now();
      // Within a millisecond counts as due: the shared timer may fire that much early, and must not be re-armed for the same instant.
      if (this.waitingSince !== undefined && now - this.waitingSince >= this.idleMs - 1) return this.onIdle();
      this.arm(this.waitingSince === undefined ? now + this.idleMs : this.waitingSince + this.idleMs);
    });
  }
}

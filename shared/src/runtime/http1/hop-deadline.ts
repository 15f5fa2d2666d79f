import { watchDeadline } from "../../http/deadline-watch";

/**
 * One request's deadline, on the shared deadline timer, across the steps the
 * request goes through (waiting for a connection, connecting, the exchange):
 * whichever step runs when it passes is ended by it.
 */
export class HopDeadline {
  expired = false;
  private onExpiry: (() => void) | undefined;
  private readonly unwatch: () => void;

  constructor(at: number) {
    this.unwatch = watchDeadline(at, () => {
      this.expired = true;
      this.onExpiry?.();
    });
  }

  /** What passing the deadline ends from now on. */
  during(onExpiry: () => void): void {
    this.onExpiry = onExpiry;
  }

  /** The request is over: its deadline no longer matters. */
  end(): void {
    this.onExpiry = undefined;
    this.unwatch();
  }
}

import { notExecuted, type Deadline } from "./deadline";
import { watchDeadline } from "./deadline-watch";

interface Waiter {
  start(): void;
  /** Stops watching the waiter's deadline. */
  unwatch?: () => void;
}

/**
 * Lets at most `limit` tasks run at once; the others wait their turn in order.
 * A service admits a few requests per database connection
 * (shared/src/service/boot-service.ts): enough for queries to pipeline, few
 * enough that a request the service cannot start soon waits here, in order.
 * A task still waiting when its deadline passes is dropped without running
 * (503, not executed): its caller has given up on it.
 */
export function concurrencyGate(limit: number) {
  let running = 0;
  const waiting: Waiter[] = [];
  // A waiting task inherits the slot, so `running` never overshoots the limit.
  const release = () => {
    const next = waiting.shift();
    if (next) {
      next.unwatch?.();
      next.start();
    } else running--;
  };
  const run = <T>(task: () => Promise<T>): Promise<T> => {
    let result: Promise<T>;
    try {
      result = task();
    } catch (error) {
      release();
      return Promise.reject(error);
    }
    return result.then(
      (value) => {
        release();
        return value;
      },
      (error: unknown) => {
        release();
        throw error;
      },
    );
  };
  /** With a slot free the task starts at once, without a promise of the gate's own to wait on. */
  return function admit<T>(task: () => Promise<T>, deadline?: Deadline): Promise<T> {
    if (running < limit) {
      running++;
      return run(task);
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { start: resolve };
      // Under load most requests wait here: their deadlines share one timer instead of one each.
      if (deadline) {
        waiter.unwatch = watchDeadline(deadline.at, () => {
          waiting.splice(waiting.indexOf(waiter), 1);
          deadline.expire();
          reject(notExecuted("The service was too busy to start the request before its deadline."));
        });
      }
      waiting.push(waiter);
    }).then(() => run(task));
  };
}

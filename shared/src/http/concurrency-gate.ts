/**
 * Lets at most `limit` tasks run at once; the others wait their turn in order.
 * Services admit only as many requests as they have database connections: when
 * every connection is busy and queries queue inside the `postgres` driver,
 * throughput decays over minutes (bench/README.md), while queueing here does not.
 */
export function concurrencyGate(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async function admit<T>(task: () => Promise<T>): Promise<T> {
    if (running < limit) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      // A waiting task inherits the slot, so `running` never overshoots the limit.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

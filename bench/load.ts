import autocannon, { type Options, type Result } from "autocannon";

export interface LoadFigures {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Completed requests in each second of the run. */
  per_second: number[];
}

/** One autocannon run; `every` is called each second (for memory sampling). */
export function load(options: Options & { every?: () => void }): Promise<LoadFigures> {
  return new Promise((resolve, reject) => {
    const perSecond: number[] = [];
    const instance = autocannon({ connections: 50, duration: 8, ...options }, (error, result: Result) => {
      if (error) return reject(error);
      resolve({
        rps: Math.round(result.requests.total / result.duration),
        p50_ms: result.latency.p50,
        p99_ms: result.latency.p99,
        requests: result.requests.total,
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
        // A last tick can come after the run ended, counting a partial second.
        per_second: perSecond.slice(0, Math.floor(options.duration ?? 8)),
      });
    });
    instance.on("tick", ({ counter }) => {
      perSecond.push(counter);
      options.every?.();
    });
  });
}

export interface LatencyFigures {
  p50_ms: number;
  p95_ms: number;
  samples: number;
}

/** The nearest-rank percentile of values sorted ascending; 0 when there are none. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * Latency of one request at a time: at most `maxRequests`, stopping after
 * `budgetMs` once `minRequests` are in. Any non-200 fails the bench.
 */
export async function sequentialLatency(
  request: () => Promise<Response>,
  { warmup = 3, minRequests = 20, maxRequests = 200, budgetMs = 3000 } = {},
): Promise<LatencyFigures> {
  for (let i = 0; i < warmup; i++) await (await request()).arrayBuffer();
  const times: number[] = [];
  const deadline = performance.now() + budgetMs;
  for (let i = 0; i < maxRequests && (i < minRequests || performance.now() < deadline); i++) {
    const started = performance.now();
    const response = await request();
    await response.arrayBuffer();
    times.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`expected 200, got ${response.status}`);
  }
  times.sort((a, b) => a - b);
  return { p50_ms: round(percentile(times, 50)), p95_ms: round(percentile(times, 95)), samples: times.length };
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** a / b to three decimals: how the bench prints its ratios. */
export const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;

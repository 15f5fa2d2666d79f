import { settleWithin, type Logger } from "@ws/shared";
import { createLimiterStats, type LimiterStats } from "./limiter-stats";

/**
 * The one outage detector for every Redis call on the request path (request
 * limiter, failed-authentication counter, credential epochs). While Redis
 * answers, calls go to it. The first call that fails (an error, or no answer
 * within `timeoutMs` when Redis hangs) marks Redis down; from then on one call at a
 * time still goes to Redis as a probe and every other call takes its fallback at
 * once, so a hung Redis costs one timeout per probe, never one per request. The
 * first probe that succeeds marks Redis up again for every caller.
 */
export interface RedisGate {
  run<T>(call: () => Promise<T>, fallback: () => T | Promise<T>): Promise<T>;
  /** True while Redis is considered down. */
  readonly down: boolean;
  readonly stats: LimiterStats;
}

export function createRedisGate(options: { logger?: Logger; stats?: LimiterStats; clock?: () => number; timeoutMs?: number } = {}): RedisGate {
  const stats = options.stats ?? createLimiterStats();
  const clock = options.clock ?? (() => performance.now());
  let probing = false;
  // A call that was already waiting when Redis came back must not declare a new outage when it times out.
  let upSince = clock();

  const markDown = (startedAt: number, error: unknown) => {
    if (stats.degraded || startedAt < upSince) return;
    stats.degraded = true;
    stats.outages += 1;
    options.logger?.error("redis unreachable: limits fall back to this replica's memory", { error: String(error) });
  };
  const markUp = () => {
    if (!stats.degraded) return;
    stats.degraded = false;
    upSince = clock();
    options.logger?.info("redis reachable again: limits go through redis");
  };

  return {
    async run(call, fallback) {
      if (stats.degraded && probing) return fallback();
      const probe = stats.degraded;
      if (probe) probing = true;
      const startedAt = clock();
      let result;
      try {
        result = await (options.timeoutMs === undefined ? call() : settleWithin(call(), options.timeoutMs, () => new Error(`Redis did not answer within ${options.timeoutMs} ms`)));
      } catch (error) {
        stats.redisErrors += 1;
        markDown(startedAt, error);
        return fallback();
      } finally {
        if (probe) probing = false;
      }
      markUp();
      return result;
    },
    get down() {
      return stats.degraded;
    },
    stats,
  };
}

import type { Redis, Cluster } from "ioredis";
import { decide, WINDOW_SECONDS, type LimitedKey, type RateLimitDecision, type RateLimiter, type SuspensionPolicy } from "./limiter";
import { redisKeys } from "./redis-keys";

/**
 * One atomic round trip per request: count the request in the key's current
 * clock-minute window (Redis's clock, so every replica agrees), suspend a key
 * that crosses the threshold (once per window, so a short suspension really
 * ends), and read the workspace's credential epoch. The three KEYS share the
 * workspace's hash tag, so the script runs on one Redis Cluster slot.
 *
 * Requests a replica counted in memory while Redis was down come along with
 * its next request (ARGV 2 and 3, only then) and are added when they belong to
 * the current window, so the count in Redis includes what was admitted without it.
 *
 * The suspension policy and the window are the same for every call, so they are
 * written into the script rather than sent each time: every argument costs the
 * gateway CPU on every request.
 *
 * KEYS: counter hash {w: window, c: count, s: suspended this window}, suspension marker, epoch.
 * ARGV: limit[, requests counted elsewhere, their window].
 * Returns: count, Redis TIME seconds, microseconds, milliseconds of suspension left, epoch.
 */
function hitScript(policy: SuspensionPolicy): string {
  const multiple = Number(policy.suspendAfterMultiple);
  const seconds = Math.trunc(Number(policy.suspendSeconds));
  if (!Number.isFinite(multiple) || !Number.isFinite(seconds)) throw new Error("the suspension policy must be numbers");
  return `
local now = redis.call('TIME')
local window = math.floor(tonumber(now[1]) / ${WINDOW_SECONDS})
local add = 1
if ARGV[3] and tonumber(ARGV[3]) == window then add = add + tonumber(ARGV[2]) end
local count
if tonumber(redis.call('HGET', KEYS[1], 'w')) == window then
  count = redis.call('HINCRBY', KEYS[1], 'c', add)
else
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'w', window, 'c', add)
  redis.call('EXPIRE', KEYS[1], ${WINDOW_SECONDS * 2})
  count = add
end
local suspended = redis.call('PTTL', KEYS[2])
if suspended < 0 then suspended = 0 end
if suspended == 0 and count > tonumber(ARGV[1]) * ${multiple} and redis.call('HSETNX', KEYS[1], 's', 1) == 1 then
  redis.call('SET', KEYS[2], '1', 'EX', ${seconds})
  suspended = ${seconds * 1000}
end
local epoch = redis.call('GET', KEYS[3]) or '0'
return {count, now[1], now[2], suspended, epoch}
`;
}

type RedisClient = Redis | Cluster;
type HitReply = [number, string, string, number, string];
type HitCommand = (counter: string, suspension: string, epoch: string, limit: number, ...countedElsewhere: number[]) => Promise<HitReply>;

/** Requests of one key counted outside Redis, in one window. */
export interface CountedElsewhere {
  window: number;
  count: number;
}

export interface RedisLimiter extends RateLimiter {
  hit(key: LimitedKey, countedElsewhere?: CountedElsewhere): Promise<RateLimitDecision>;
}

export function createRedisLimiter(redis: RedisClient, policy: SuspensionPolicy): RedisLimiter {
  // Named by the policy: two limiters with different policies on one client each get their own script.
  const command = `rateLimitHit_${policy.suspendAfterMultiple}_${policy.suspendSeconds}`.replace(/\W/g, "_");
  redis.defineCommand(command, { numberOfKeys: 3, lua: hitScript(policy) });
  const hitCommand = (redis as unknown as Record<string, HitCommand>)[command]!.bind(redis);
  return {
    async hit(key: LimitedKey, countedElsewhere?: CountedElsewhere): Promise<RateLimitDecision> {
      const keys = [redisKeys.counter(key.workspaceId, key.id), redisKeys.suspension(key.workspaceId, key.id), redisKeys.authEpoch(key.workspaceId)] as const;
      const [count, seconds, micros, suspendedMs, epoch] = countedElsewhere
        ? await hitCommand(...keys, key.limit, countedElsewhere.count, countedElsewhere.window)
        : await hitCommand(...keys, key.limit);
      const now = Number(seconds) + Number(micros) / 1_000_000;
      return decide(Number(count), key.limit, now, Number(suspendedMs) / 1000, String(epoch));
    },
    async close() {},
  };
}

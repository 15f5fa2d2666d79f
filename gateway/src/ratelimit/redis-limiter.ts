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
 * its next request (ARGV 5 and 6) and are added when they belong to the current
 * window, so the count in Redis includes what was admitted without it.
 *
 * KEYS: counter hash {w: window, c: count, s: suspended this window}, suspension marker, epoch.
 * ARGV: limit, suspend-after multiple, suspend seconds, window seconds, requests counted elsewhere, their window.
 * Returns: count, Redis TIME seconds, microseconds, milliseconds of suspension left, epoch.
 */
const HIT_SCRIPT = `
local now = redis.call('TIME')
local window = math.floor(tonumber(now[1]) / tonumber(ARGV[4]))
local add = 1
if tonumber(ARGV[6]) == window then add = add + tonumber(ARGV[5]) end
local count
if tonumber(redis.call('HGET', KEYS[1], 'w')) == window then
  count = redis.call('HINCRBY', KEYS[1], 'c', add)
else
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'w', window, 'c', add)
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]) * 2)
  count = add
end
local suspended = redis.call('PTTL', KEYS[2])
if suspended < 0 then suspended = 0 end
if suspended == 0 and count > tonumber(ARGV[1]) * tonumber(ARGV[2]) and redis.call('HSETNX', KEYS[1], 's', 1) == 1 then
  redis.call('SET', KEYS[2], '1', 'EX', ARGV[3])
  suspended = tonumber(ARGV[3]) * 1000
end
local epoch = redis.call('GET', KEYS[3]) or '0'
return {count, now[1], now[2], suspended, epoch}
`;

type RedisClient = Redis | Cluster;
type HitReply = [number, string, string, number, string];
type HitCommand = (
  counter: string, suspension: string, epoch: string,
  limit: number, multiple: number, seconds: number, windowSeconds: number, countedElsewhere: number, countedInWindow: number,
) => Promise<HitReply>;

/** Requests of one key counted outside Redis, in one window. */
export interface CountedElsewhere {
  window: number;
  count: number;
}

export interface RedisLimiter extends RateLimiter {
  hit(key: LimitedKey, countedElsewhere?: CountedElsewhere): Promise<RateLimitDecision>;
}

export function createRedisLimiter(redis: RedisClient, policy: SuspensionPolicy): RedisLimiter {
  redis.defineCommand("rateLimitHit", { numberOfKeys: 3, lua: HIT_SCRIPT });
  const hitCommand = (redis as unknown as { rateLimitHit: HitCommand }).rateLimitHit.bind(redis);
  return {
    async hit(key: LimitedKey, countedElsewhere?: CountedElsewhere): Promise<RateLimitDecision> {
      const [count, seconds, micros, suspendedMs, epoch] = await hitCommand(
        redisKeys.counter(key.workspaceId, key.id),
        redisKeys.suspension(key.workspaceId, key.id),
        redisKeys.authEpoch(key.workspaceId),
        key.limit,
        policy.suspendAfterMultiple,
        policy.suspendSeconds,
        WINDOW_SECONDS,
        countedElsewhere?.count ?? 0,
        countedElsewhere?.window ?? -1,
      );
      const now = Number(seconds) + Number(micros) / 1_000_000;
      return decide(Number(count), key.limit, now, Number(suspendedMs) / 1000, String(epoch));
    },
    async close() {},
  };
}

import type { Redis, Cluster } from "ioredis";
import { decide, WINDOW_SECONDS, type LimitedKey, type RateLimitDecision, type RateLimiter, type SuspensionPolicy } from "./limiter";
import { redisKeys } from "./redis-keys";

/**
 * One atomic round trip per request: count the request in the key's current
 * clock-minute window (Redis's clock, so every replica agrees), suspend a key
 * that keeps going far past its limit, and read the workspace's credential epoch.
 */
const HIT_SCRIPT = `
local now = redis.call('TIME')
local seconds = tonumber(now[1]) + tonumber(now[2]) / 1000000
local window = math.floor(seconds / ${WINDOW_SECONDS})
local count
if tonumber(redis.call('HGET', KEYS[1], 'w')) == window then
  count = redis.call('HINCRBY', KEYS[1], 'c', 1)
else
  redis.call('HSET', KEYS[1], 'w', window, 'c', 1)
  redis.call('EXPIRE', KEYS[1], ${WINDOW_SECONDS * 2})
  count = 1
end
local suspended = redis.call('TTL', KEYS[2])
if suspended < 0 then suspended = 0 end
if suspended == 0 and count > tonumber(ARGV[1]) * tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], '1', 'EX', ARGV[3])
  suspended = tonumber(ARGV[3])
end
local epoch = redis.call('GET', KEYS[3]) or '0'
return {count, tostring(seconds), suspended, epoch}
`;

type RedisClient = Redis | Cluster;
type HitCommand = (counter: string, suspension: string, epoch: string, limit: number, multiple: number, seconds: number) => Promise<[number, string, number, string]>;

export function createRedisLimiter(redis: RedisClient, policy: SuspensionPolicy): RateLimiter {
  redis.defineCommand("rateLimitHit", { numberOfKeys: 3, lua: HIT_SCRIPT });
  const hitCommand = (redis as unknown as { rateLimitHit: HitCommand }).rateLimitHit.bind(redis);
  return {
    async hit(key: LimitedKey): Promise<RateLimitDecision> {
      const [count, seconds, suspended, epoch] = await hitCommand(
        redisKeys.counter(key.workspaceId, key.id),
        redisKeys.suspension(key.workspaceId, key.id),
        redisKeys.authEpoch(key.workspaceId),
        key.limit,
        policy.suspendAfterMultiple,
        policy.suspendSeconds,
      );
      return decide(Number(count), key.limit, Number(seconds), Number(suspended), String(epoch));
    },
    async close() {},
  };
}

import { ApiError, clientUnit } from "@ws/shared";
import type { Cluster, Redis } from "ioredis";
import { windowEnd, WINDOW_SECONDS } from "./limiter";
import { minuteWindows } from "./minute-windows";
import { createRedisGate, type RedisGate } from "./redis-gate";
import { redisKeys } from "./redis-keys";

/**
 * Failed authentication is limited per client address, so keys cannot be
 * guessed at speed. Past the limit a failure answers 429 rate_limit_exceeded
 * (with Retry-After) instead of 401. An IPv6 client is counted by its /64. What
 * a blocked address may still do is the caller's decision: the public API looks
 * up keys that exist (auth/known-keys.ts), the management API refuses outright.
 */
export interface AuthFailureLimiter {
  /** Counts a failed authentication; throws the 429 once the address is past its limit. */
  recordFailure(clientAddress: string): Promise<void>;
  /** Throws the 429, without counting, while the address is past its limit: call before verifying a key. */
  assertNotBlocked(clientAddress: string): Promise<void>;
}

/** Failures of one address in the current clock-minute window, and seconds until that window ends. */
interface FailureCounter {
  increment(clientAddress: string): Promise<{ count: number; retryAfter: number }>;
  read(clientAddress: string): Promise<{ count: number; retryAfter: number }>;
}

/** Every 429 carries the X-RateLimit-* headers: here they are the address's limit of failures, used up, and its window's end. */
function tooMany(limitPerMinute: number, retryAfter: number): ApiError {
  return new ApiError("rate_limit_exceeded", `Too many failed authentication attempts from this address. Retry in ${retryAfter} s.`, {
    details: { retry_after: retryAfter },
    headers: {
      "retry-after": String(retryAfter),
      "x-ratelimit-limit": String(limitPerMinute),
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String(windowEnd(Date.now() / 1000)),
    },
  });
}

function limitedBy(counter: FailureCounter, limitPerMinute: number): AuthFailureLimiter {
  return {
    async recordFailure(clientAddress) {
      const { count, retryAfter } = await counter.increment(clientUnit(clientAddress));
      if (count > limitPerMinute) throw tooMany(limitPerMinute, retryAfter);
    },
    async assertNotBlocked(clientAddress) {
      const { count, retryAfter } = await counter.read(clientUnit(clientAddress));
      if (count >= limitPerMinute) throw tooMany(limitPerMinute, retryAfter);
    },
  };
}

function memoryCounter(clock: () => number): FailureCounter {
  const failures = minuteWindows();
  const retryAfter = (now: number) => Math.max(1, Math.ceil(windowEnd(now) - now));
  return {
    async increment(clientAddress) {
      const now = clock() / 1000;
      return { count: ++failures.current(clientAddress, now).count, retryAfter: retryAfter(now) };
    },
    async read(clientAddress) {
      const now = clock() / 1000;
      return { count: failures.peek(clientAddress, now)?.count ?? 0, retryAfter: retryAfter(now) };
    },
  };
}

/** INCR and an expiry at the end of the clock minute (Redis's clock), in one script on one key. */
const INCREMENT_SCRIPT = `
local now = tonumber(redis.call('TIME')[1])
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIREAT', KEYS[1], (math.floor(now / tonumber(ARGV[1])) + 1) * tonumber(ARGV[1])) end
return {count, redis.call('TTL', KEYS[1])}
`;

/** Which credential failed: API keys and the admin token are counted apart. */
export type FailureKind = "api-key" | "admin-token";

function redisCounter(redis: Redis | Cluster, kind: FailureKind): FailureCounter {
  redis.defineCommand("authFailureIncrement", { numberOfKeys: 1, lua: INCREMENT_SCRIPT });
  const increment = (redis as unknown as { authFailureIncrement(key: string, window: number): Promise<[number, number]> }).authFailureIncrement.bind(redis);
  return {
    async increment(clientAddress) {
      const [count, ttl] = await increment(redisKeys.authFailures(clientAddress, kind), WINDOW_SECONDS);
      return { count: Number(count), retryAfter: Math.max(1, Number(ttl)) };
    },
    async read(clientAddress) {
      const key = redisKeys.authFailures(clientAddress, kind);
      const [[, count], [, ttl]] = (await redis.multi().get(key).ttl(key).exec()) as [[unknown, string | null], [unknown, number]];
      return { count: Number(count ?? 0), retryAfter: Math.max(1, Number(ttl)) };
    },
  };
}

export function createMemoryAuthFailureLimiter(limitPerMinute: number, clock: () => number = Date.now): AuthFailureLimiter {
  return limitedBy(memoryCounter(clock), limitPerMinute);
}

/**
 * Shared by every replica through Redis; while the gate says Redis is down,
 * counted per replica in memory (whatever RATE_LIMIT_FAILURE_MODE says: refusing
 * every failed login with 503 would tell an attacker nothing more than a 401).
 */
export function createRedisAuthFailureLimiter(
  redis: Redis | Cluster,
  limitPerMinute: number,
  options: { gate?: RedisGate; kind?: FailureKind } = {},
): AuthFailureLimiter {
  const primary = redisCounter(redis, options.kind ?? "api-key");
  const fallback = memoryCounter(Date.now);
  const gate = options.gate ?? createRedisGate();
  const resilient = (operation: "increment" | "read"): FailureCounter[typeof operation] => (clientAddress) =>
    gate.run(() => primary[operation](clientAddress), () => fallback[operation](clientAddress));
  return limitedBy({ increment: resilient("increment"), read: resilient("read") }, limitPerMinute);
}

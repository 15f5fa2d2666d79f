import type { Redis, Cluster } from "ioredis";
import { decide, WINDOW_SECONDS, type LimitedKey, type RateLimitDecision, type RateLimiter, type SuspensionPolicy } from "./limiter";
import { redisKeys } from "./redis-keys";

/**
 * One atomic round trip per batch of a key's requests: count them in the key's
 * current clock-minute window (Redis's clock, so every replica agrees), suspend
 * a key that crosses the threshold (once per window, so a short suspension
 * really ends), and read the workspace's credential epoch. The three KEYS share
 * the workspace's hash tag, so the script runs on one Redis Cluster slot.
 *
 * A batch of n requests adds n at once; request i of the batch holds count
 * `count − n + 1 + i`, exactly what n calls one after another would have given
 * it, so the limit, the remaining count and the suspension are decided per
 * request as before. When the batch sets the suspension, it applies from the
 * first count past the threshold (the 6th value), as it would have one call at
 * a time; a suspension already running applies to the whole batch (0).
 *
 * A suspension is set by the call whose requests cross the threshold: a count
 * already past it (the key's limit was lowered within the window) is refused
 * as over the limit, not suspended.
 *
 * Requests a replica counted in memory while Redis was down come along with
 * its next request (ARGV 3 and 4, only then, in a batch of one) and are added
 * when they belong to the current window, so the count in Redis includes what
 * was admitted without it.
 *
 * The suspension policy and the window are the same for every call, so they are
 * written into the script rather than sent each time: every argument costs the
 * gateway CPU on every call.
 *
 * KEYS: counter hash {w: window, c: count, s: suspended this window}, suspension marker, epoch.
 * ARGV: limit[, requests in the batch (1 when absent)[, requests counted elsewhere, their window]].
 * Returns: count, Redis TIME seconds, microseconds, milliseconds of suspension left, epoch,
 * the first count the suspension applies to.
 */
function hitScript(policy: SuspensionPolicy): string {
  const multiple = Number(policy.suspendAfterMultiple);
  const seconds = Math.trunc(Number(policy.suspendSeconds));
  if (!Number.isFinite(multiple) || !Number.isFinite(seconds)) throw new Error("the suspension policy must be numbers");
  return `
local now = redis.call('TIME')
local window = math.floor(tonumber(now[1]) / ${WINDOW_SECONDS})
local batch = tonumber(ARGV[2] or 1)
local add = batch
if ARGV[4] and tonumber(ARGV[4]) == window then add = add + tonumber(ARGV[3]) end
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
local from = 0
local threshold = tonumber(ARGV[1]) * ${multiple}
if suspended == 0 and count > threshold and count - add <= threshold and redis.call('HSETNX', KEYS[1], 's', 1) == 1 then
  redis.call('SET', KEYS[2], '1', 'EX', ${seconds})
  suspended = ${seconds * 1000}
  from = math.max(count - batch + 1, math.floor(threshold) + 1)
end
local epoch = redis.call('GET', KEYS[3]) or '0'
return {count, now[1], now[2], suspended, epoch, from}
`;
}

type RedisClient = Redis | Cluster;
type HitReply = [number, string, string, number, string, number];
type HitCommand = (counter: string, suspension: string, epoch: string, limit: number, ...rest: number[]) => Promise<HitReply>;

/** Requests of one key counted outside Redis, in one window. */
export interface CountedElsewhere {
  window: number;
  count: number;
}

export interface RedisLimiter extends RateLimiter {
  hit(key: LimitedKey, countedElsewhere?: CountedElsewhere): Promise<RateLimitDecision>;
}

/** A key's requests waiting for the same round trip; `size` is final once the batch is sent. */
interface Batch {
  key: LimitedKey;
  size: number;
  reply: Promise<HitReply>;
  resolve(reply: HitReply): void;
  reject(error: unknown): void;
}

/** Request `index` (from 0) of a batch of `size`, decided as if the batch's requests had been counted one after another. */
function decisionInBatch(reply: HitReply, limit: number, index: number, size: number): RateLimitDecision {
  const [total, seconds, micros, suspendedMs, epoch, suspendedFrom] = reply;
  const count = Number(total) - size + 1 + index;
  const now = Number(seconds) + Number(micros) / 1_000_000;
  const suspended = Number(suspendedMs) > 0 && count >= Number(suspendedFrom) ? Number(suspendedMs) / 1000 : 0;
  return decide(count, limit, now, suspended, String(epoch));
}

/**
 * Requests of one key that arrive in the same turn of the event loop share one
 * script call (a hot key is where the gateway spends its Redis time); they are
 * sent when the loop has read what is ready, so a lone request waits for
 * nothing but that turn. Keys differ: the turn's calls leave together, in one
 * pipeline (one write) on a single Redis. A lone call is sent as it is: a
 * pipeline costs more CPU than the write it saves (ioredis's auto-pipelining,
 * which made one of every call, cost the gateway up to 10 µs a request).
 * Redis Cluster cannot pipeline keys of different slots: there each call is
 * sent alone and the client's auto-pipelining groups them by node.
 */
export function createRedisLimiter(redis: RedisClient, policy: SuspensionPolicy): RedisLimiter {
  // Named by the policy: two limiters with different policies on one client each get their own script.
  const command = `rateLimitHit_${policy.suspendAfterMultiple}_${policy.suspendSeconds}`.replace(/\W/g, "_");
  redis.defineCommand(command, { numberOfKeys: 3, lua: hitScript(policy) });
  const hitCommand = (redis as unknown as Record<string, HitCommand>)[command]!.bind(redis);
  const keysOf = (key: LimitedKey) => [redisKeys.counter(key.workspaceId, key.id), redisKeys.suspension(key.workspaceId, key.id), redisKeys.authEpoch(key.workspaceId)] as const;
  /** Batches not sent yet, by key id and limit (a key whose limit changed mid-turn starts a batch of its own). */
  const open = new Map<string, Batch>();
  let scheduled = false;

  const pipelines = !redis.isCluster && !redis.options.enableAutoPipelining;
  /** The script's arguments for a batch: the batch's size only when more than one request shares the call. */
  const argsOf = ({ key, size }: Batch): Parameters<HitCommand> => (size === 1 ? [...keysOf(key), key.limit] : [...keysOf(key), key.limit, size]);
  const send = (batch: Batch) => {
    try {
      hitCommand(...argsOf(batch)).then(batch.resolve, batch.reject);
    } catch (error) {
      batch.reject(error);
    }
  };
  const sendTogether = (batches: Batch[]) => {
    try {
      const pipeline = redis.pipeline() as unknown as Record<string, HitCommand> & { exec(): Promise<[Error | null, unknown][] | null> };
      for (const batch of batches) pipeline[command]!(...argsOf(batch));
      pipeline.exec().then(
        (results) => {
          batches.forEach((batch, i) => {
            const [error, reply] = results?.[i] ?? [new Error("the pipeline gave no answer"), undefined];
            if (error) batch.reject(error);
            else batch.resolve(reply as HitReply);
          });
        },
        (error: unknown) => {
          for (const batch of batches) batch.reject(error);
        },
      );
    } catch (error) {
      for (const batch of batches) batch.reject(error);
    }
  };
  const sendAll = () => {
    scheduled = false;
    const batches = [...open.values()];
    open.clear();
    if (batches.length > 1 && pipelines) sendTogether(batches);
    else for (const batch of batches) send(batch);
  };
  const openBatch = (key: LimitedKey): Batch => {
    const batch = { key, size: 0 } as Batch;
    batch.reply = new Promise<HitReply>((resolve, reject) => Object.assign(batch, { resolve, reject }));
    return batch;
  };

  return {
    async hit(key: LimitedKey, countedElsewhere?: CountedElsewhere): Promise<RateLimitDecision> {
      if (countedElsewhere) {
        const reply = await hitCommand(...keysOf(key), key.limit, 1, countedElsewhere.count, countedElsewhere.window);
        return decisionInBatch(reply, key.limit, 0, 1);
      }
      const id = `${key.workspaceId} ${key.id} ${key.limit}`;
      let batch = open.get(id);
      if (!batch) {
        batch = openBatch(key);
        open.set(id, batch);
        if (!scheduled) {
          scheduled = true;
          setImmediate(sendAll);
        }
      }
      const index = batch.size++;
      const reply = await batch.reply;
      return decisionInBatch(reply, key.limit, index, batch.size);
    },
    async close() {},
  };
}

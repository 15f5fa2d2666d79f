import type { Redis, Cluster } from "ioredis";
import { decide, LEASE_GRACE_MS, LEASE_MS, MAX_LEASE, MIN_LEASE_BAND, WINDOW_SECONDS, windowEnd, type LimitedKey, type RateLimitDecision, type RateLimiter, type SuspensionPolicy } from "./limiter";
import { redisKeys } from "./redis-keys";

/** After a call is told to wait for leases, no lease is granted until this long past the time it was told to ask again. */
const WAITER_TURN_MS = 10;

/**
 * One atomic round trip per batch of a key's requests: count them in the key's
 * current clock-minute window (Redis's clock, so every replica agrees), suspend
 * a key that crosses the threshold (once per window, so a short suspension
 * really ends), read the workspace's credential epoch, and give back or grant
 * a lease of the key's quota. The three KEYS share the workspace's hash tag,
 * so the script runs on one Redis Cluster slot.
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
 * its next request (ARGV 3 and 4) and are added when they belong to the
 * current window, so the count in Redis includes what was admitted without it.
 *
 * Leases (gateway/src/ratelimit/README.md, "Leases of the quota"): a lease of
 * k units adds k to the count at once and is recorded in the counter hash as
 * field `L<id>` = "k expiry-ms", `n` holding how many are outstanding. Its
 * holder gives back what it did not use (ARGV 7 and 8) with its next call or
 * when the lease ends. The first lease granted while none is outstanding sets
 * the key's **top** (`b`): the count then plus a band of a tenth of the limit
 * (at least MIN_LEASE_BAND), never past the ceiling (nine tenths of the
 * limit). Leases are granted only up to the top, and a batch that would take
 * the count past the top while any lease is outstanding is not counted: the
 * reply says how long to wait (count −1, 8th value), and no lease is granted
 * until WAITER_TURN_MS past the moment it was told to ask again (`nl`): the
 * outstanding leases drain meanwhile, and the waiting call is counted before
 * a replica that keeps its key busy takes the next band. The next lease
 * granted while none is outstanding sets a new top. A lease not given back
 * LEASE_GRACE_MS after its end counts as spent (`X<id>` keeps its units): if
 * its holder was only slow and gives it back later, what it did not spend is
 * uncounted then.
 *
 * The suspension policy, the window and the lease timings are the same for
 * every call, so they are written into the script rather than sent each time:
 * every argument costs the gateway CPU on every call.
 *
 * KEYS: counter hash {w: window, c: count, s: suspended this window, n, nl, b, L<id>..., X<id>...}, suspension marker, epoch.
 * ARGV: limit[, requests in the batch (1 when absent)[, requests counted elsewhere, their window
 *       [, lease wanted, its id, lease to give back, its unused units, 1 to count past outstanding leases]]].
 * Returns: count, Redis TIME seconds, microseconds, milliseconds of suspension left, epoch ('' when
 * none is held: NO_EPOCH),
 * the first count the suspension applies to, units leased, milliseconds to wait (when count is −1),
 * the top the lease keeps the count under.
 */
function hitScript(policy: SuspensionPolicy, leaseMs: number): string {
  const multiple = Number(policy.suspendAfterMultiple);
  const seconds = Math.trunc(Number(policy.suspendSeconds));
  if (!Number.isFinite(multiple) || !Number.isFinite(seconds)) throw new Error("the suspension policy must be numbers");
  return `
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local window = math.floor(tonumber(now[1]) / ${WINDOW_SECONDS})
local limit = tonumber(ARGV[1])
local batch = tonumber(ARGV[2] or 1)
local add = batch
if ARGV[4] and tonumber(ARGV[4]) == window then add = add + tonumber(ARGV[3]) end
if tonumber(redis.call('HGET', KEYS[1], 'w')) ~= window then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'w', window)
  redis.call('EXPIRE', KEYS[1], ${WINDOW_SECONDS * 2})
end
if ARGV[7] and ARGV[7] ~= '' then
  local held = redis.call('HGET', KEYS[1], 'L' .. ARGV[7])
  local spent = held == false and redis.call('HGET', KEYS[1], 'X' .. ARGV[7])
  if held or spent then
    local units = tonumber(string.match(held or spent, '^(%d+)'))
    local unused = math.min(units, tonumber(ARGV[8]))
    if unused > 0 then redis.call('HINCRBY', KEYS[1], 'c', -unused) end
    if held then
      redis.call('HDEL', KEYS[1], 'L' .. ARGV[7])
      redis.call('HINCRBY', KEYS[1], 'n', -1)
    else
      redis.call('HDEL', KEYS[1], 'X' .. ARGV[7])
    end
  end
end
local ceiling = math.floor(limit * 9 / 10)
local outstanding = tonumber(redis.call('HGET', KEYS[1], 'n') or 0)
local top = tonumber(redis.call('HGET', KEYS[1], 'b') or ceiling)
local count = redis.call('HINCRBY', KEYS[1], 'c', add)
if add > 0 and count > top and ARGV[9] ~= '1' and outstanding > 0 then
  local latest = -1
  local fields = redis.call('HGETALL', KEYS[1])
  for i = 1, #fields, 2 do
    if string.sub(fields[i], 1, 1) == 'L' then
      local expiry = tonumber(string.match(fields[i + 1], ' (%d+)$'))
      if expiry + ${LEASE_GRACE_MS} < nowMs then
        redis.call('HDEL', KEYS[1], fields[i])
        redis.call('HSET', KEYS[1], 'X' .. string.sub(fields[i], 2), string.match(fields[i + 1], '^(%d+)'))
        outstanding = redis.call('HINCRBY', KEYS[1], 'n', -1)
      elseif expiry > latest then
        latest = expiry
      end
    end
  end
  if latest >= 0 then
    redis.call('HINCRBY', KEYS[1], 'c', -add)
    local wait = latest - nowMs + 2
    if wait < 2 then wait = 10 end
    redis.call('HSET', KEYS[1], 'nl', math.max(tonumber(redis.call('HGET', KEYS[1], 'nl') or 0), nowMs + wait + ${WAITER_TURN_MS}))
    return {-1, now[1], now[2], 0, '', 0, 0, wait, 0}
  end
end
local suspended = redis.call('PTTL', KEYS[2])
if suspended < 0 then suspended = 0 end
local from = 0
local threshold = limit * ${multiple}
if suspended == 0 and count > threshold and count - add <= threshold and redis.call('HSETNX', KEYS[1], 's', 1) == 1 then
  redis.call('SET', KEYS[2], '1', 'EX', ${seconds})
  suspended = ${seconds * 1000}
  from = math.max(count - batch + 1, math.floor(threshold) + 1)
end
local granted = 0
local want = tonumber(ARGV[5] or 0)
if want > 0 and suspended == 0 and count < ceiling and nowMs >= tonumber(redis.call('HGET', KEYS[1], 'nl') or 0) then
  if outstanding <= 0 then
    top = math.min(ceiling, count + math.max(limit - ceiling, ${MIN_LEASE_BAND}))
    redis.call('HSET', KEYS[1], 'b', top)
  end
  if count < top then
    granted = math.min(want, top - count)
    redis.call('HINCRBY', KEYS[1], 'c', granted)
    redis.call('HSET', KEYS[1], 'L' .. ARGV[6], granted .. ' ' .. (nowMs + ${leaseMs}))
    redis.call('HINCRBY', KEYS[1], 'n', 1)
  end
end
-- An epoch that is not a number (written by hand) is none: the key is read again and its epoch published anew.
local epoch = redis.call('GET', KEYS[3])
if not tonumber(epoch) then epoch = '' end
return {count, now[1], now[2], suspended, epoch, from, granted, 0, top}
`;
}

type RedisClient = Redis | Cluster;
type HitReply = [number, string, string, number, string, number, number, number, number];
type HitCommand = (counter: string, suspension: string, epoch: string, limit: number, ...rest: (number | string)[]) => Promise<HitReply>;

/** Requests of one key counted outside Redis, in one window. */
export interface CountedElsewhere {
  window: number;
  count: number;
}

/** The key's count is at the top its leases keep it under while other replicas hold some: ask again after `waitMs`. */
export interface LeaseWait {
  waitMs: number;
}

export const isLeaseWait = (result: RateLimitDecision | LeaseWait): result is LeaseWait => "waitMs" in result;

/** After waiting this long, a request is counted even past leases still outstanding, so none waits without end. */
const MAX_LEASE_WAIT_MS = 2 * (LEASE_MS + LEASE_GRACE_MS);

export interface RedisLimiter extends RateLimiter {
  /** A decision from this replica's lease of the key's quota, with no round trip; undefined when it holds none it may use. */
  leased(key: LimitedKey): RateLimitDecision | undefined;
  /** One round trip (shared with the key's other requests of the turn): the decision, or how long to wait before asking again. */
  attempt(key: LimitedKey, countedElsewhere?: CountedElsewhere, force?: boolean): Promise<RateLimitDecision | LeaseWait>;
  /** From the lease, or through Redis, waiting out other replicas' leases where the count is at their top. */
  hit(key: LimitedKey, countedElsewhere?: CountedElsewhere): Promise<RateLimitDecision>;
}

/**
 * How long a lease may be spent. Every replica of a deployment uses LEASE_MS:
 * a management change answers that long after its epoch landed (boot.ts), so
 * a lease read before it is spent by then. Only a test of what a lease
 * decides gives a longer one, so that a loaded machine's round trip does not
 * outlast it.
 */
export interface LeaseTiming {
  leaseMs?: number;
}

/** A share of a key's quota this replica took from Redis, spent here without a round trip until its deadline. */
interface Lease {
  id: string;
  key: LimitedKey;
  /** Units not spent yet. */
  units: number;
  used: number;
  /** performance.now() past which the lease may not be spent: its call's send time + LEASE_MS, never past the window's end. */
  deadline: number;
  /** The count the key's leases keep Redis's count at or below while any is out. */
  top: number;
  resetAt: number;
  epoch: string;
  timer?: ReturnType<typeof setTimeout>;
}

/** What one script call carries besides the key: see the ARGV of hitScript. */
interface ScriptCall {
  /** Requests counted by this call (0: a give-back alone). */
  size?: number;
  elsewhere?: CountedElsewhere;
  want?: number;
  leaseId?: string;
  settle?: Pick<Lease, "id" | "units">;
  /** Counted even past other replicas' leases (the wait for them ran out). */
  force?: boolean;
}

/** A key's requests waiting for the same round trip; `size` is final once the batch is sent. */
interface Batch {
  key: LimitedKey;
  id: string;
  size: number;
  reply: Promise<HitReply>;
  resolve(reply: HitReply): void;
  reject(error: unknown): void;
  /** Set when the batch is sent: what it asks for and gives back. */
  want: number;
  leaseId: string;
  settle?: Lease;
  sentAt: number;
}

/** Request `index` (from 0) of a batch of `size`, decided as if the batch's requests had been counted one after another. */
function decisionInBatch(reply: HitReply, limit: number, index: number, size: number): RateLimitDecision | LeaseWait {
  const [total, seconds, micros, suspendedMs, epoch, suspendedFrom, , waitMs] = reply;
  if (Number(total) < 0) return { waitMs: Number(waitMs) };
  const count = Number(total) - size + 1 + index;
  const now = Number(seconds) + Number(micros) / 1_000_000;
  const suspended = Number(suspendedMs) > 0 && count >= Number(suspendedFrom) ? Number(suspendedMs) / 1000 : 0;
  return decide(count, limit, now, suspended, String(epoch));
}

/** How many units to ask for: about twice what the last lease served, once one turn brings more than one request. */
function wanted(batchSize: number, previous: Lease | undefined): number {
  const demand = Math.max(previous ? 2 * previous.used : 0, batchSize > 1 ? 4 * batchSize : 0);
  return Math.min(demand, MAX_LEASE);
}

/**
 * When a lease stops being spent, on this process's clock: LEASE_MS after its
 * call was sent, and never past the end of the window it was counted in (read
 * on Redis's clock after the send, so the end comes no sooner than this).
 * Redis ends the lease LEASE_MS after it ran the call, which is later still.
 */
export function leaseDeadline(sentAt: number, redisNowMs: number, leaseMs = LEASE_MS): number {
  return sentAt + Math.min(leaseMs, windowEnd(redisNowMs / 1000) * 1000 - redisNowMs);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Asks until decided: at the leases' top, waits out other replicas' leases (bounded by MAX_LEASE_WAIT_MS). */
export async function untilDecided(attempt: (force: boolean) => Promise<RateLimitDecision | LeaseWait>): Promise<RateLimitDecision> {
  const giveUpAt = performance.now() + MAX_LEASE_WAIT_MS;
  for (;;) {
    const result = await attempt(performance.now() >= giveUpAt);
    if (!isLeaseWait(result)) return result;
    await sleep(Math.max(1, Math.min(result.waitMs, LEASE_MS + LEASE_GRACE_MS)));
  }
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
 *
 * A key that brings more than one request in a turn takes a lease of its
 * quota with that call, and its next requests are decided here from the lease,
 * with no round trip and no wait, until the lease is spent or LEASE_MS have
 * passed since the call was sent. One lease call per key is in flight at a
 * time: requests that find it in flight wait for its lease.
 */
export function createRedisLimiter(redis: RedisClient, policy: SuspensionPolicy, { leaseMs = LEASE_MS }: LeaseTiming = {}): RedisLimiter {
  // Named by the policy and the lease's length: two limiters that differ on one client each get their own script.
  const command = `rateLimitHit_${policy.suspendAfterMultiple}_${policy.suspendSeconds}_${leaseMs}`.replace(/\W/g, "_");
  redis.defineCommand(command, { numberOfKeys: 3, lua: hitScript(policy, leaseMs) });
  const hitCommand = (redis as unknown as Record<string, HitCommand>)[command]!.bind(redis);
  const keysOf = (key: LimitedKey) => [redisKeys.counter(key.workspaceId, key.id), redisKeys.suspension(key.workspaceId, key.id), redisKeys.authEpoch(key.workspaceId)] as const;
  const idOf = (key: LimitedKey) => `${key.workspaceId} ${key.id} ${key.limit}`;
  /** Batches not sent yet, by key id and limit (a key whose limit changed mid-turn starts a batch of its own). */
  const open = new Map<string, Batch>();
  /** This replica's current lease of each key (and limit). */
  const leases = new Map<string, Lease>();
  /** Calls asking for a lease, in flight, by key id and limit. */
  const leaseCalls = new Map<string, Promise<unknown>>();
  // Leases are given back by id: ids of two limiters (replicas) must never meet.
  const replica = crypto.randomUUID().replaceAll("-", "");
  let leaseSeq = 0;
  let scheduled = false;

  const pipelines = !redis.isCluster && !redis.options.enableAutoPipelining;
  /**
   * The one place the script's argument list (ARGV, see hitScript) is laid out: only as many arguments as
   * the call needs, since every argument costs CPU.
   */
  const scriptArgs = (key: LimitedKey, call: ScriptCall = {}): Parameters<HitCommand> => {
    const { size = 1, elsewhere, want = 0, leaseId = "", settle, force = false } = call;
    const args: Parameters<HitCommand> = [...keysOf(key), key.limit];
    if (size === 1 && !elsewhere && want === 0 && !settle && !force) return args;
    args.push(size);
    if (!elsewhere && want === 0 && !settle && !force) return args;
    args.push(elsewhere?.count ?? 0, elsewhere?.window ?? -1);
    if (want === 0 && !settle && !force) return args;
    args.push(want, leaseId, settle?.id ?? "", settle?.units ?? 0);
    if (force) args.push(1);
    return args;
  };
  const argsOf = ({ key, size, want, leaseId, settle }: Batch) => scriptArgs(key, { size, want, leaseId, settle });

  /** Stops spending the key's lease: its unused units go back with the next call (or with `giveBack`). */
  const retire = (id: string): Lease | undefined => {
    const lease = leases.get(id);
    if (!lease) return undefined;
    leases.delete(id);
    clearTimeout(lease.timer);
    return lease;
  };
  /** A lease that ended with no call to carry it back is given back on its own: until then other replicas at its top wait for it. */
  const giveBack = (lease: Lease) => hitCommand(...scriptArgs(lease.key, { size: 0, settle: lease })).catch(() => {});
  const onLeaseEnd = (lease: Lease) => {
    const id = idOf(lease.key);
    if (leases.get(id) !== lease) return;
    retire(id);
    void giveBack(lease);
  };
  const takeLease = (batch: Batch, reply: HitReply) => {
    const [total, seconds, micros, , epoch, , granted, , top] = reply;
    if (!(Number(granted) > 0) || Number(total) < 0) return;
    const redisNowMs = Number(seconds) * 1000 + Number(micros) / 1000;
    const lease: Lease = {
      id: batch.leaseId,
      key: batch.key,
      units: Number(granted),
      used: 0,
      deadline: leaseDeadline(batch.sentAt, redisNowMs, leaseMs),
      top: Number(top),
      resetAt: windowEnd(Number(seconds)),
      epoch: String(epoch),
    };
    // One lease call per key is in flight at a time, so none should be held here; if one is, it goes back rather than being lost.
    const replaced = retire(batch.id);
    if (replaced) void giveBack(replaced);
    leases.set(batch.id, lease);
    lease.timer = setTimeout(() => onLeaseEnd(lease), Math.max(0, lease.deadline - performance.now()));
  };

  const prepare = (batch: Batch, sentAt: number) => {
    batch.sentAt = sentAt;
    batch.settle = retire(batch.id);
    batch.want = wanted(batch.size, batch.settle);
    if (batch.want > 0) {
      batch.leaseId = `${replica}.${(++leaseSeq).toString(36)}`;
      leaseCalls.set(batch.id, batch.reply);
      const done = () => {
        if (leaseCalls.get(batch.id) === batch.reply) leaseCalls.delete(batch.id);
      };
      batch.reply.then((reply) => {
        takeLease(batch, reply);
        done();
      }, done);
    }
  };
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
    const sentAt = performance.now();
    for (const batch of batches) prepare(batch, sentAt);
    if (batches.length > 1 && pipelines) sendTogether(batches);
    else for (const batch of batches) send(batch);
  };
  const openBatch = (key: LimitedKey, id: string): Batch => {
    const batch = { key, id, size: 0, want: 0, leaseId: "", sentAt: 0 } as Batch;
    batch.reply = new Promise<HitReply>((resolve, reject) => Object.assign(batch, { resolve, reject }));
    // Handled by whoever awaits it; this only keeps a failed lease call from reading as unhandled.
    batch.reply.catch(() => {});
    return batch;
  };

  const leased = (key: LimitedKey): RateLimitDecision | undefined => {
    if (leases.size === 0) return undefined;
    const lease = leases.get(idOf(key));
    if (!lease || lease.units === 0 || performance.now() >= lease.deadline) return undefined;
    lease.units -= 1;
    lease.used += 1;
    // While the lease is out the key's count is at most its top, this lease's unspent units included: at least this many truly remain.
    const count = lease.top - lease.units;
    return { outcome: "allowed", limit: key.limit, count, remaining: key.limit - count, resetAt: lease.resetAt, retryAfter: 0, authEpoch: lease.epoch };
  };

  const attempt = async (key: LimitedKey, countedElsewhere?: CountedElsewhere, force = false): Promise<RateLimitDecision | LeaseWait> => {
    if (countedElsewhere || force) return decisionInBatch(await hitCommand(...scriptArgs(key, { elsewhere: countedElsewhere, force })), key.limit, 0, 1);
    const id = idOf(key);
    const inFlight = leaseCalls.get(id);
    if (inFlight) {
      await inFlight.catch(() => {});
      const fromLease = leased(key);
      if (fromLease) return fromLease;
    }
    let batch = open.get(id);
    if (!batch) {
      batch = openBatch(key, id);
      open.set(id, batch);
      if (!scheduled) {
        scheduled = true;
        setImmediate(sendAll);
      }
    }
    const index = batch.size++;
    const reply = await batch.reply;
    return decisionInBatch(reply, key.limit, index, batch.size);
  };

  return {
    leased,
    attempt,
    async hit(key, countedElsewhere) {
      return leased(key) ?? untilDecided((force) => attempt(key, countedElsewhere, force));
    },
    async close() {
      // What this replica did not spend goes back, so the others are not left waiting for it at its top;
      // a Redis that does not answer must not hold up the shutdown (the leases then count as spent).
      const held = [...leases.values()];
      leases.clear();
      for (const lease of held) clearTimeout(lease.timer);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([Promise.all(held.map(giveBack)), new Promise((resolve) => (timer = setTimeout(resolve, LEASE_GRACE_MS)))]);
      clearTimeout(timer);
    },
  };
}

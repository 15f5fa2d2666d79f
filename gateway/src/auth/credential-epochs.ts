import type { Redis, Cluster } from "ioredis";
import type { RedisGate } from "../ratelimit/redis-gate";
import { redisKeys } from "../ratelimit/redis-keys";

/**
 * A workspace's credential epoch rises, in the database and then here, with
 * every change that can alter what one of its keys may do (revocation, role,
 * deactivation, team membership, new teams). Replicas compare it on every request
 * with the epoch their cached key was loaded with.
 */
export interface CredentialEpochs {
  /** The published epoch, or NO_EPOCH when none is held. */
  current(workspaceId: string): Promise<string>;
  /** Raises the published epoch to at least this value (never lowers it). */
  publish(workspaceId: string, epoch: string): Promise<void>;
  /**
   * Changes whenever the store the epochs are read from may have lost or
   * rolled back what it held since (a new connection to Redis: a restart, a
   * failover): a key cached before then is not trusted on what it says now.
   */
  incarnation(): number;
}

/**
 * What Redis answers for a workspace whose epoch it does not hold (never
 * published, or lost: flushed, evicted, restarted empty). It equals no stored
 * epoch, so no cached key is trusted on it: the key is read again and its
 * epoch published anew.
 */
export const NO_EPOCH = "";

export function createMemoryEpochs(): CredentialEpochs {
  const epochs = new Map<string, bigint>();
  return {
    // Held in this process, they are lost only with its cache.
    incarnation: () => 0,
    async current(workspaceId) {
      return String(epochs.get(workspaceId) ?? 0n);
    },
    async publish(workspaceId, epoch) {
      const value = BigInt(epoch);
      if (value > (epochs.get(workspaceId) ?? 0n)) epochs.set(workspaceId, value);
    },
  };
}

const RAISE_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[1]))
if not current or tonumber(ARGV[1]) > current then redis.call('SET', KEYS[1], ARGV[1]) end
return 1`;

const EPOCH = /^\d+$/;

/**
 * Epochs in Redis, read over `redis`. Its incarnation moves on every
 * connection made ready (with Redis Cluster, every node's) and, with Redis
 * Cluster, whenever its set of masters changes: ioredis emits "ready" before
 * any answer read on the new connection is handled, and "refresh" as it
 * routes slots to a promoted replica (to which it may have been connected all
 * along), so no answer of a Redis that restarted from an older snapshot, or
 * of a replica promoted before it had the newest epoch, is taken for the one
 * a key was cached under.
 */
export function createRedisEpochs(redis: Redis | Cluster): CredentialEpochs {
  redis.defineCommand("raiseAuthEpoch", { numberOfKeys: 1, lua: RAISE_SCRIPT });
  const raise = (redis as unknown as { raiseAuthEpoch(key: string, value: string): Promise<number> }).raiseAuthEpoch.bind(redis);
  let incarnation = 0;
  const moveOn = () => void incarnation++;
  redis.on("ready", moveOn);
  redis.on("+node", (node: Redis) => {
    moveOn();
    node.on("ready", moveOn);
  });
  let masters = "";
  redis.on("refresh", () => {
    const now = (redis as Cluster)
      .nodes("master")
      .map((node) => `${node.options.host}:${node.options.port}`)
      .sort()
      .join(" ");
    if (now === masters) return;
    masters = now;
    moveOn();
  });
  return {
    incarnation: () => incarnation,
    async current(workspaceId) {
      const epoch = await redis.get(redisKeys.authEpoch(workspaceId));
      // One that is not a number (written by hand) is none, as in the hit script.
      return epoch !== null && EPOCH.test(epoch) ? epoch : NO_EPOCH;
    },
    async publish(workspaceId, epoch) {
      await raise(redisKeys.authEpoch(workspaceId), epoch);
    },
  };
}

/**
 * The request path's view of the epochs: through the gate, so that while Redis
 * is down a request never waits on it (a publish is then skipped and reported
 * as failed; whoever needs it to land retries, as the management API does).
 */
export function gatedEpochs(epochs: CredentialEpochs, gate: RedisGate): CredentialEpochs {
  const redisDown = (): never => {
    throw new Error("Redis is unreachable");
  };
  return {
    incarnation: () => epochs.incarnation(),
    current: (workspaceId) => gate.run(() => epochs.current(workspaceId), redisDown),
    publish: (workspaceId, epoch) => gate.run(() => epochs.publish(workspaceId, epoch), redisDown),
  };
}

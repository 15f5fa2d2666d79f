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
  current(workspaceId: string): Promise<string>;
  /** Raises the published epoch to at least this value (never lowers it). */
  publish(workspaceId: string, epoch: string): Promise<void>;
}

export function createMemoryEpochs(): CredentialEpochs {
  const epochs = new Map<string, bigint>();
  return {
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
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > current then redis.call('SET', KEYS[1], ARGV[1]) end
return 1`;

export function createRedisEpochs(redis: Redis | Cluster): CredentialEpochs {
  redis.defineCommand("raiseAuthEpoch", { numberOfKeys: 1, lua: RAISE_SCRIPT });
  const raise = (redis as unknown as { raiseAuthEpoch(key: string, value: string): Promise<number> }).raiseAuthEpoch.bind(redis);
  return {
    async current(workspaceId) {
      return (await redis.get(redisKeys.authEpoch(workspaceId))) ?? "0";
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
    current: (workspaceId) => gate.run(() => epochs.current(workspaceId), redisDown),
    publish: (workspaceId, epoch) => gate.run(() => epochs.publish(workspaceId, epoch), redisDown),
  };
}

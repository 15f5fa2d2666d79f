import { notExecuted, settleWithin, type Pool, type Role, type Scope } from "@ws/shared";
import { findKeyCredential, touchApiKey } from "../identity/api-keys";
import { hashKey, isWellFormedKey, keyLength } from "../keys/key-format";
import { NO_EPOCH, type CredentialEpochs } from "./credential-epochs";
import type { KnownKeys } from "./known-keys";
import { unauthorized } from "./extract-credential";

/** What the gateway knows about a presented key; cached per replica, keyed by its hash. */
export interface Credential {
  keyId: string;
  workspaceId: string;
  memberId: string;
  keyScopes: Scope[];
  role: Role;
  targetTeamIds: string[] | null;
  visibleTeamIds: string[];
  rateLimitPerMinute: number | null;
  epoch: string;
  /** Problem that makes the key unusable, checked on every request since expiry moves with the clock. */
  revoked: boolean;
  memberActive: boolean;
  expiresAt: number | null;
}

export interface Authenticated {
  credential: Credential;
  /** True when read from the database for this request, so it needs no epoch check. */
  fresh: boolean;
  hash: string;
  /** The cache's entry it was taken from. */
  cached?: CachedKey;
}

/** A credential as cached, with the epochs' incarnation its epoch was confirmed in. */
interface CachedKey {
  credential: Credential;
  incarnation: number;
  /** performance.now() when it was read from the database. */
  readAt: number;
}

/**
 * A key read from the database and refused (revoked, expired, a rotated-out
 * secret, its creator deactivated, or no such key): refused again from memory
 * while its workspace's credentials are unchanged, so sending a dead key over
 * and over costs no database look-up. Only a management change, which raises
 * the workspace's epoch, can make such a key usable again (a new expiry, the
 * creator reactivated); the key is then read again on its next request. No
 * key can come to exist under a hash that had none: keys are random.
 */
interface RefusedKey {
  /** Why, as the client is told. */
  message: string;
  /** The workspace and its epoch when the key was read; absent when no key has this hash. */
  workspaceId?: string;
  epoch?: string;
  incarnation: number;
  readAt: number;
}

const MAX_CACHED_KEYS = 50_000;
const MAX_REFUSED_KEYS = 10_000;
const UNKNOWN_KEY = "The API key is not valid.";
const TOUCH_INTERVAL_MS = 60_000;

const malformed = () => unauthorized("invalid_token", "The API key is malformed.");

export function createAuthenticator(deps: {
  sql: Pool;
  /** How long a key's look-up may take before the request is refused (503): a database that hangs holds no request longer. */
  databaseTimeoutMs: number;
  /**
   * A cached key is read again at least this often, whatever the epochs say:
   * a backstop for what no epoch check can see, such as a proxy in front of
   * Redis that moves the gateway's open connections to a replica lacking an
   * epoch, or an epoch written back by hand.
   */
  keyCacheMaxAgeMs: number;
  keyPrefix: string;
  epochs: CredentialEpochs;
  /** Consulted when `beforeLookup` refuses: a key that exists is looked up anyway. */
  knownKeys: KnownKeys;
  /** Called for every database look-up of a presented key, so guessing shows in metrics. */
  onLookup?: () => void;
  onBackgroundError?: (error: unknown) => void;
}) {
  const cache = new Map<string, CachedKey>();
  const refused = new Map<string, RefusedKey>();
  const touchedAt = new Map<string, number>();

  /** The stored credential of a key; a hash no key has is refused, and remembered as such. */
  async function load(digest: Buffer, hash: string): Promise<Credential> {
    deps.onLookup?.();
    const row = await settleWithin(findKeyCredential(deps.sql, digest), deps.databaseTimeoutMs, () => notExecuted("The database did not answer in time."));
    if (!row) {
      remember(hash, { message: UNKNOWN_KEY, incarnation: deps.epochs.incarnation(), readAt: performance.now() });
      throw unauthorized("invalid_token", UNKNOWN_KEY);
    }
    // A secret that a rotation replaced works until its own end, never past the key's.
    const ends = [row.expires_at, row.current_secret ? null : (row.previous_key_expires_at ?? new Date(0))].filter((end) => end !== null);
    return {
      keyId: row.id,
      workspaceId: row.workspace_id,
      memberId: row.created_by,
      keyScopes: row.scopes,
      role: row.role,
      targetTeamIds: row.team_ids,
      visibleTeamIds: row.visible_team_ids,
      rateLimitPerMinute: row.rate_limit_per_minute,
      epoch: row.auth_epoch,
      revoked: row.revoked_at !== null,
      memberActive: row.active,
      expiresAt: ends.length ? Math.min(...ends.map((end) => end.getTime())) : null,
    };
  }

  /** Why the key may not be used now, or undefined when it may. */
  function refusalOf(credential: Credential): string | undefined {
    if (credential.revoked) return "The API key has been revoked.";
    if (credential.expiresAt !== null && credential.expiresAt <= Date.now()) return "The API key has expired.";
    if (!credential.memberActive) return "The API key's creator has been deactivated.";
    return undefined;
  }

  function assertUsable(credential: Credential): void {
    const refusal = refusalOf(credential);
    if (refusal !== undefined) throw unauthorized("invalid_token", refusal);
  }

  /**
   * A key just read from the database that is refused publishes its epoch
   * first (Redis never lowers one): when Redis lost the change that refuses
   * it, the replicas that still hold the key cached read it again. A key that
   * is used does this in `confirm`, where the published epoch is known.
   */
  function assertUsableAsRead(credential: Credential, hash: string): void {
    const refusal = refusalOf(credential);
    if (refusal === undefined) return;
    republish(credential);
    const { workspaceId, epoch } = credential;
    remember(hash, { message: refusal, workspaceId, epoch, incarnation: deps.epochs.incarnation(), readAt: performance.now() });
    throw unauthorized("invalid_token", refusal);
  }

  function remember(hash: string, entry: RefusedKey): void {
    if (refused.size >= MAX_REFUSED_KEYS) refused.delete(refused.keys().next().value!);
    refused.set(hash, entry);
  }

  /** Why a key refused before is still refused, or undefined when it must be read again. */
  async function stillRefused(hash: string): Promise<string | undefined> {
    const entry = refused.get(hash);
    if (entry === undefined) return undefined;
    const fresh = performance.now() - entry.readAt <= deps.keyCacheMaxAgeMs;
    if (fresh && (entry.workspaceId === undefined || (await unchangedSince(entry.workspaceId, entry.epoch!, entry.incarnation)))) return entry.message;
    refused.delete(hash);
    return undefined;
  }

  /**
   * Whether a workspace's credentials are as they were at `epoch`, read in
   * `incarnation`: false when Redis cannot tell, or may have lost what it held
   * since (a new connection).
   */
  async function unchangedSince(workspaceId: string, epoch: string, incarnation: number): Promise<boolean> {
    try {
      return (await deps.epochs.current(workspaceId)) === epoch && incarnation === deps.epochs.incarnation();
    } catch {
      return false;
    }
  }

  /** Raises the published epoch to the credential's, in the background. */
  function republish(credential: Credential): void {
    deps.epochs.publish(credential.workspaceId, credential.epoch).catch((error) => deps.onBackgroundError?.(error));
  }

  /**
   * A cached key that has expired is refused from the cache, unless its
   * workspace's credentials changed since it was read: a new expiry (or none)
   * may have made it usable again, and must apply on the next request. Only
   * an expired cached key costs this read of the epoch; when Redis cannot
   * tell, or may have lost what it held since (a new connection), the
   * database is asked.
   */
  async function expiredSinceChanged({ credential: cached, incarnation }: CachedKey): Promise<boolean> {
    if (cached.expiresAt === null || cached.expiresAt > Date.now()) return false;
    return !(await unchangedSince(cached.workspaceId, cached.epoch, incarnation));
  }

  function touch(credential: Credential): void {
    const now = Date.now();
    if (now - (touchedAt.get(credential.keyId) ?? 0) < TOUCH_INTERVAL_MS) return;
    touchedAt.set(credential.keyId, now);
    touchApiKey(deps.sql, credential.keyId).catch((error) => deps.onBackgroundError?.(error));
  }

  return {
    /**
     * Refuses malformed keys without a database look-up; otherwise the cached or
     * stored credential. `beforeLookup` runs only when the database must be asked,
     * which is where guessed keys go. When it refuses (the address is past its
     * failure limit), only a key that exists goes on to the look-up: a valid key
     * is never refused, and a guess never reaches the database.
     */
    async authenticate(key: string, beforeLookup?: () => Promise<void>): Promise<Authenticated> {
      if (key.length !== keyLength(deps.keyPrefix)) throw malformed();
      const digest = hashKey(key);
      const hash = digest.toString("hex");
      let entry = cache.get(hash);
      if (entry !== undefined && performance.now() - entry.readAt > deps.keyCacheMaxAgeMs) {
        cache.delete(hash);
        entry = undefined;
      }
      // Only a well-formed key is ever cached (by its hash): a key found there needs no checksum.
      if (!entry && !isWellFormedKey(key, deps.keyPrefix)) throw malformed();
      if (!entry && refused.size > 0) {
        const refusal = await stillRefused(hash);
        if (refusal !== undefined) throw unauthorized("invalid_token", refusal);
      }
      if (!entry && beforeLookup) {
        try {
          await beforeLookup();
        } catch (refusal) {
          if (!(await deps.knownKeys.mightExist(digest))) throw refusal;
        }
      }
      if (entry && (await expiredSinceChanged(entry))) {
        cache.delete(hash);
        const credential = await load(digest, hash);
        assertUsableAsRead(credential, hash);
        return { credential, fresh: true, hash };
      }
      if (entry) {
        assertUsable(entry.credential);
        return { credential: entry.credential, fresh: false, hash, cached: entry };
      }
      const credential = await load(digest, hash);
      assertUsableAsRead(credential, hash);
      return { credential, fresh: true, hash };
    },

    /**
     * Called with the epoch the limiter read in the same round trip: a cached
     * credential from an older epoch is read again, so revocations and role
     * changes apply on the very next request at every replica. So is one
     * cached before the epochs' store may have lost what it held (a new
     * connection to Redis), or when it holds no epoch: a Redis restarted
     * empty, or from an older snapshot, must not bring back the epoch a key
     * was cached under.
     */
    async confirm(key: string, authenticated: Authenticated, currentEpoch: string | null): Promise<Credential> {
      let credential = authenticated.credential;
      let readAt = authenticated.cached?.readAt ?? performance.now();
      const incarnation = deps.epochs.incarnation();
      const reread = !authenticated.fresh && (credential.epoch !== currentEpoch || authenticated.cached?.incarnation !== incarnation);
      if (reread) {
        cache.delete(authenticated.hash);
        credential = await load(hashKey(key), authenticated.hash);
        readAt = performance.now();
      }
      if (reread) assertUsableAsRead(credential, authenticated.hash);
      const lags = currentEpoch === NO_EPOCH || (currentEpoch !== null && BigInt(credential.epoch) > BigInt(currentEpoch));
      if (lags) {
        // The published epoch lags the database (Redis lost it, or a publish failed): heal it.
        republish(credential);
      }
      // A key confirmed from the cache stays as it was cached.
      if (currentEpoch !== null && credential.epoch === currentEpoch && (authenticated.fresh || reread)) {
        if (cache.size >= MAX_CACHED_KEYS) cache.delete(cache.keys().next().value!);
        cache.set(authenticated.hash, { credential, incarnation, readAt });
      }
      touch(credential);
      return credential;
    },

    forgetAll(): void {
      cache.clear();
      refused.clear();
    },
  };
}
export type Authenticator = ReturnType<typeof createAuthenticator>;

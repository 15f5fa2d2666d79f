import type { Pool } from "@ws/shared";
import { databaseNow, keyHashPrefixesAfter, keyHashPrefixesChangedSince, type KeyHashPrefixes } from "../identity/api-keys";

/**
 * "Could this hash be a key that exists?", answered from memory, so an address
 * past its failed-authentication limit can still use a valid key without
 * letting its guesses reach the database (gateway/src/ratelimit/README.md).
 *
 * Each replica holds the first 8 bytes of the hash of every key that is not
 * revoked, and of the secret a rotation replaced while it still works: 8 bytes
 * a secret (8 MB for a million keys), sorted for binary search, plus a small
 * set of recent ones. A guess matches a stored prefix by chance
 * with probability (keys / 2^64): no guess reaches the database in practice.
 *
 * Never a false "no" for a key whose creation was acknowledged before the
 * request arrived: on a miss the answer waits for a sync with the database that
 * started after the request did. Syncs run at most once per SYNC_INTERVAL_MS
 * whatever the number of misses, so a flood of guesses costs the database one
 * small indexed query per interval per replica.
 */
export interface KnownKeys {
  mightExist(hash: Buffer): Promise<boolean>;
  /** Loads the full set in the background; a miss before it is done waits for it. */
  start(): void;
}

const SYNC_INTERVAL_MS = 500;
const LOAD_PAGE = 10_000;
/** Longer than any insert of a key takes between `now()` and commit, so a sync never skips one still committing. */
const SYNC_OVERLAP_SECONDS = 60;
const MERGE_AT = 4096;

function prefixOf(hash: Uint8Array): bigint {
  return new DataView(hash.buffer, hash.byteOffset, 8).getBigUint64(0);
}

/** Every working secret's prefix of these keys. */
function prefixesOf(rows: readonly KeyHashPrefixes[]): bigint[] {
  const out: bigint[] = [];
  for (const row of rows) {
    out.push(prefixOf(row.prefix));
    if (row.previous_prefix) out.push(prefixOf(row.previous_prefix));
  }
  return out;
}

/** Two sorted arrays as one sorted array, in one pass. */
function mergeSorted(a: BigUint64Array, b: BigUint64Array): BigUint64Array<ArrayBuffer> {
  const out = new BigUint64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i]! <= b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

/** A sorted array of prefixes, and a set of those added since it was last merged into it. */
function prefixSet(mergeAt: number) {
  let sorted: BigUint64Array<ArrayBuffer> = new BigUint64Array(0);
  let recent = new Set<bigint>();

  function inSorted(value: bigint): boolean {
    let low = 0;
    let high = sorted.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const found = sorted[middle]!;
      if (found === value) return true;
      if (found < value) low = middle + 1;
      else high = middle - 1;
    }
    return false;
  }

  return {
    has: (value: bigint) => recent.has(value) || inSorted(value),
    /** Everything at once (the load at start): one sort, not one merge per batch. */
    replaceAll(values: BigUint64Array) {
      sorted = values.slice().sort();
      recent = new Set([...recent].filter((value) => !inSorted(value)));
    },
    add(values: Iterable<bigint>) {
      for (const value of values) if (!inSorted(value)) recent.add(value);
      if (recent.size < mergeAt) return;
      sorted = mergeSorted(sorted, BigUint64Array.from(recent).sort());
      recent = new Set();
    },
    get size() {
      return sorted.length + recent.size;
    },
  };
}

export interface KnownKeysOptions {
  sql: Pool;
  onError?: (error: unknown) => void;
  /** Smaller in tests, to cover paging and merging with a few keys. */
  loadPageSize?: number;
  mergeAt?: number;
}

export function createKnownKeys(deps: KnownKeysOptions): KnownKeys & { readonly size: number } {
  const clock = () => performance.now();
  const pageSize = deps.loadPageSize ?? LOAD_PAGE;
  const prefixes = prefixSet(deps.mergeAt ?? MERGE_AT);
  /** Database time from which the next sync reads new keys. */
  let syncFrom: Date | null = null;
  let loading: Promise<void> | null = null;
  let syncing: { startedAt: number; done: Promise<void> } | null = null;
  let lastSyncStartedAt = -Infinity;

  async function loadAll(): Promise<void> {
    const from = await databaseNow(deps.sql);
    let all = new BigUint64Array(pageSize);
    let count = 0;
    let after: string | null = null;
    for (;;) {
      const page = await keyHashPrefixesAfter(deps.sql, after, pageSize);
      const found = prefixesOf(page);
      if (count + found.length > all.length) {
        const grown = new BigUint64Array(Math.max(all.length * 2, count + found.length));
        grown.set(all);
        all = grown;
      }
      for (const prefix of found) all[count++] = prefix;
      if (page.length < pageSize) break;
      after = page.at(-1)!.id;
    }
    prefixes.replaceAll(all.subarray(0, count));
    syncFrom = new Date(from.getTime() - SYNC_OVERLAP_SECONDS * 1000);
  }

  function loaded(): Promise<void> {
    loading ??= loadAll().catch((error) => {
      loading = null;
      throw error;
    });
    return loading;
  }

  async function syncNewKeys(): Promise<void> {
    await loaded();
    const from = await databaseNow(deps.sql);
    prefixes.add(prefixesOf(await keyHashPrefixesChangedSince(deps.sql, syncFrom!)));
    syncFrom = new Date(from.getTime() - SYNC_OVERLAP_SECONDS * 1000);
  }

  /** Resolves once a sync that started at or after `arrival` has finished; one at a time, at most one per interval. */
  async function syncStartedAfter(arrival: number): Promise<void> {
    for (;;) {
      if (syncing && syncing.startedAt >= arrival) return syncing.done;
      if (syncing) {
        await syncing.done.catch(() => {});
        continue;
      }
      const wait = lastSyncStartedAt + SYNC_INTERVAL_MS - clock();
      if (wait > 0) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        continue;
      }
      const startedAt = clock();
      lastSyncStartedAt = startedAt;
      const done = syncNewKeys().finally(() => {
        syncing = null;
      });
      syncing = { startedAt, done };
    }
  }

  return {
    async mightExist(hash) {
      const arrival = clock();
      const prefix = prefixOf(hash);
      try {
        await loaded();
        if (prefixes.has(prefix)) return true;
        await syncStartedAfter(arrival);
        return prefixes.has(prefix);
      } catch {
        // The database did not answer: let the look-up ask it, and fail as it fails.
        return true;
      }
    },
    start() {
      loaded().catch((error) => deps.onError?.(error));
    },
    get size() {
      return prefixes.size;
    },
  };
}

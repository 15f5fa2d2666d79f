import type { Sql } from "@ws/shared";

/** The one module that reads and writes the idempotency_keys table. */

export interface KeyRef {
  apiKeyId: string;
  key: string;
}

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * A settled record's answer without its body: the body (up to a page, 10 MiB)
 * is fetched with `readBody` once there is room in memory for it.
 */
export interface SettledAnswer {
  /** The attempt that settled the record, which pins the body to this answer. */
  attempt: string;
  status: number;
  headers: Record<string, string>;
  bodyBytes: number;
}

export type Existing =
  | { state: "done"; fingerprint: Uint8Array; answer: SettledAnswer }
  | { state: "running"; fingerprint: Uint8Array; stale: boolean };

interface Row {
  fingerprint: Uint8Array;
  attempt: string;
  status: number | null;
  response_headers: Record<string, string> | null;
  body_bytes: number;
  stale: boolean;
}

/**
 * Takes the key for this attempt when nobody holds it, or when the record there
 * has expired (it is then overwritten: the purge need not have run). True when taken.
 */
export async function claim(
  sql: Sql,
  ref: KeyRef,
  attempt: { id: string; fingerprint: Uint8Array; lockMs: number; ttlMs: number },
): Promise<boolean> {
  const rows = await sql`
    insert into idempotency_keys (api_key_id, idempotency_key, fingerprint, attempt, locked_until, expires_at)
    values (${ref.apiKeyId}, ${ref.key}, ${attempt.fingerprint}, ${attempt.id},
      now() + ${attempt.lockMs} * interval '1 millisecond', now() + ${attempt.ttlMs} * interval '1 millisecond')
    on conflict (api_key_id, idempotency_key) do update set
      fingerprint = excluded.fingerprint, attempt = excluded.attempt, locked_until = excluded.locked_until,
      status = null, response_headers = null, response_body = null, created_at = now(), expires_at = excluded.expires_at,
      forwarded = false
    where idempotency_keys.expires_at <= now()
    returning attempt`;
  return rows.length === 1;
}

function toExisting(row: Row): Existing {
  if (row.status === null) return { state: "running", fingerprint: row.fingerprint, stale: row.stale };
  return {
    state: "done",
    fingerprint: row.fingerprint,
    answer: { attempt: row.attempt, status: row.status, headers: row.response_headers ?? {}, bodyBytes: Number(row.body_bytes) },
  };
}

/** The record another attempt made, its answer's body left out; undefined when it went away meanwhile (its key was let go). */
export async function read(sql: Sql, ref: KeyRef): Promise<Existing | undefined> {
  const [row] = await sql<Row[]>`
    select fingerprint, attempt, status, response_headers, coalesce(octet_length(response_body), 0) as body_bytes,
      locked_until <= now() as stale
    from idempotency_keys where api_key_id = ${ref.apiKeyId} and idempotency_key = ${ref.key}`;
  return row ? toExisting(row) : undefined;
}

/**
 * The body of the answer `read` found settled by `attempt`; undefined when that
 * record is gone (expired and claimed afresh, or purged). A settled record never
 * changes under the same attempt, so the body is the one its length was read for.
 */
export async function readBody(sql: Sql, ref: KeyRef, attempt: string): Promise<Uint8Array | undefined> {
  const [row] = await sql<{ response_body: Uint8Array | null }[]>`
    select response_body from idempotency_keys
    where api_key_id = ${ref.apiKeyId} and idempotency_key = ${ref.key} and attempt = ${attempt} and status is not null`;
  return row ? (row.response_body ?? new Uint8Array()) : undefined;
}

/** Stores the attempt's answer; false when the attempt no longer holds the key. */
export async function complete(sql: Sql, ref: KeyRef, attemptId: string, answer: StoredAnswer): Promise<boolean> {
  const rows = await sql`
    update idempotency_keys set status = ${answer.status}, response_headers = ${sql.json(answer.headers)},
      response_body = ${answer.body}, locked_until = now()
    where api_key_id = ${ref.apiKeyId} and idempotency_key = ${ref.key} and attempt = ${attemptId} and status is null
    returning attempt`;
  return rows.length === 1;
}

/**
 * Notes that the attempt is about to be sent on to its service (from then on
 * its outcome can be unknown); false when the attempt no longer holds the key.
 */
export async function markForwarded(sql: Sql, ref: KeyRef, attemptId: string): Promise<boolean> {
  const rows = await sql`
    update idempotency_keys set forwarded = true
    where api_key_id = ${ref.apiKeyId} and idempotency_key = ${ref.key} and attempt = ${attemptId} and status is null
    returning attempt`;
  return rows.length === 1;
}

/** Lets the key go, so that a retry runs afresh. */
export async function release(sql: Sql, ref: KeyRef, attemptId: string): Promise<void> {
  await sql`
    delete from idempotency_keys
    where api_key_id = ${ref.apiKeyId} and idempotency_key = ${ref.key} and attempt = ${attemptId} and status is null`;
}

/**
 * Settles a record whose attempt outlived its lock (its gateway stopped while
 * the request ran, or could not let the key go) unless something settled it
 * first: with the given answer when the attempt was sent on to its service;
 * deleted when it never was, so that a retry runs. Returns the record as it
 * then stands.
 */
export async function settleStale(sql: Sql, ref: KeyRef, answer: StoredAnswer): Promise<Existing | undefined> {
  await sql`
    delete from idempotency_keys
    where api_key_id = ${ref.apiKeyId} and idempotency_key = ${ref.key} and status is null and locked_until <= now() and not forwarded`;
  await sql`
    update idempotency_keys set status = ${answer.status}, response_headers = ${sql.json(answer.headers)}, response_body = ${answer.body}
    where api_key_id = ${ref.apiKeyId} and idempotency_key = ${ref.key} and status is null and locked_until <= now() and forwarded`;
  return read(sql, ref);
}

/** Deletes up to `limit` expired records, skipping rows another replica is purging; returns how many went. */
export async function purgeExpired(sql: Sql, limit: number): Promise<number> {
  const result = await sql`
    delete from idempotency_keys where ctid in (
      select ctid from idempotency_keys where expires_at <= now() order by expires_at limit ${limit} for update skip locked)`;
  return result.count;
}

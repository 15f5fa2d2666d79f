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

export type Existing =
  | { state: "done"; fingerprint: Uint8Array; answer: StoredAnswer }
  | { state: "running"; fingerprint: Uint8Array; stale: boolean };

interface Row {
  fingerprint: Uint8Array;
  status: number | null;
  response_headers: Record<string, string> | null;
  response_body: Uint8Array | null;
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
      status = null, response_headers = null, response_body = null, created_at = now(), expires_at = excluded.expires_at
    where idempotency_keys.expires_at <= now()
    returning attempt`;
  return rows.length === 1;
}

function toExisting(row: Row): Existing {
  if (row.status === null) return { state: "running", fingerprint: row.fingerprint, stale: row.stale };
  return {
    state: "done",
    fingerprint: row.fingerprint,
    answer: { status: row.status, headers: row.response_headers ?? {}, body: row.response_body ?? new Uint8Array() },
  };
}

/** The record another attempt made; undefined when it went away meanwhile (its key was let go). */
export async function read(sql: Sql, ref: KeyRef): Promise<Existing | undefined> {
  const [row] = await sql<Row[]>`
    select fingerprint, status, response_headers, response_body, locked_until <= now() as stale
    from idempotency_keys where api_key_id = ${ref.apiKeyId} and idempotency_key = ${ref.key}`;
  return row ? toExisting(row) : undefined;
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

/** Lets the key go, so that a retry runs afresh. */
export async function release(sql: Sql, ref: KeyRef, attemptId: string): Promise<void> {
  await sql`
    delete from idempotency_keys
    where api_key_id = ${ref.apiKeyId} and idempotency_key = ${ref.key} and attempt = ${attemptId} and status is null`;
}

/**
 * Settles a record whose attempt outlived its lock (its gateway stopped while
 * the request ran) with the given answer, unless something settled it first;
 * returns the record as it then stands.
 */
export async function settleStale(sql: Sql, ref: KeyRef, answer: StoredAnswer): Promise<Existing | undefined> {
  await sql`
    update idempotency_keys set status = ${answer.status}, response_headers = ${sql.json(answer.headers)}, response_body = ${answer.body}
    where api_key_id = ${ref.apiKeyId} and idempotency_key = ${ref.key} and status is null and locked_until <= now()`;
  return read(sql, ref);
}

/** Deletes up to `limit` expired records, skipping rows another replica is purging; returns how many went. */
export async function purgeExpired(sql: Sql, limit: number): Promise<number> {
  const result = await sql`
    delete from idempotency_keys where ctid in (
      select ctid from idempotency_keys where expires_at <= now() order by expires_at limit ${limit} for update skip locked)`;
  return result.count;
}

import { createHash } from "node:crypto";
import { ApiError, OUTCOME_UNKNOWN_DETAILS, OUTCOME_UNKNOWN_STATUS, bytesReleasedWhenSent, databaseFailure, errorBody, requestIdOf, settleWithin, toResponse, type Answer, type BodyLease, type BudgetItems, type IncomingRequest, type Logger, type Pool } from "@ws/shared";
import { createLateReleases } from "./late-releases";
import * as store from "./store";
import type { KeyRef, SettledAnswer, StoredAnswer } from "./store";

export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
export const REPLAYED_HEADER = "idempotency-replayed";
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** How long a key's first answer is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** The headers of an answer that describe what was done; rate-limit headers and the request id belong to each request. */
const REPLAYED_HEADERS = ["content-type", "etag", "location"];
/**
 * Visible ASCII only, 1 to 255 of them, as documented. No space: two
 * Idempotency-Key headers reach here joined by ", ", and are refused rather
 * than taken as one key that neither header named.
 */
/** The characters of a key: visible ASCII, `!` to `~` (a space is not one). */
export const IDEMPOTENCY_KEY_CHARACTERS = "\\x21-\\x7E";
const WELL_FORMED_KEY = new RegExp(`^[${IDEMPOTENCY_KEY_CHARACTERS}]{1,${MAX_IDEMPOTENCY_KEY_LENGTH}}$`);
const IDEMPOTENCY_KEY_FIELD = "Idempotency-Key";
const PURGE_BATCH = 1000;

export interface IdempotentRequest {
  request: IncomingRequest;
  operation: { operationId: string; method: string };
  /** The API key the request authenticated with: keys are per API key. */
  apiKeyId: string;
  /**
   * The key's access as this request has it (its scopes, its targets, the teams
   * its creator sees), in one string: a first answer is replayed only to a
   * request with the same, since it was given under that access. Asked for
   * only when the request carries an Idempotency-Key.
   */
  access: () => string;
  body: Uint8Array | null;
  /**
   * Room for the answer's body in the gateway's budget of bodies in memory (the
   * key's and its workspace's share), held until that answer has been written
   * out to the client: a stored answer is up to a page (10 MiB) read whole from
   * the database, and a client that does not read would otherwise keep it in
   * memory as long as the server waits for it. `run` owns it from here: it is
   * given back whatever the outcome.
   */
  answerLease: BodyLease;
}

/**
 * What an answer says about the work: 2xx was done; 4xx and 503 were not
 * (refused before any change, or never reached the service), so the key is let
 * go and a retry runs afresh; any other 5xx, 502 above all, may or may not have
 * been done, so it is kept and replayed: running it again could do it twice.
 */
function keeps(status: number): boolean {
  return status < 400 || (status >= 500 && status !== 503);
}

function fingerprint(operationId: string, access: string, body: Uint8Array | null): Uint8Array {
  return createHash("sha256").update(operationId).update("\n").update(access).update("\n").update(body ?? new Uint8Array()).digest();
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

/** What an answer lease holds, as its refusals name it: a replay carries an answer, not a request body. */
export const ANSWERS_IN_TRANSIT: BudgetItems = { noun: "answers and request bodies", reason: "answers_in_transit" };

/** A gateway that stopped while holding the key leaves the outcome unknown, as a 502 does; that is what the key then holds. */
const UNKNOWN_OUTCOME: StoredAnswer = {
  status: OUTCOME_UNKNOWN_STATUS,
  headers: { "content-type": "application/json" },
  body: new TextEncoder().encode(
    JSON.stringify(
      errorBody(
        "service_unavailable",
        "The first request with this Idempotency-Key did not finish at the gateway, so whether it took effect is unknown. Check, then send a new request with a new key.",
        OUTCOME_UNKNOWN_DETAILS,
      ),
    ),
  ),
};

/**
 * Idempotency-Key on the public API's POSTs: the first answer to a key (per API
 * key, for 24 hours) is stored in the gateway's database and replayed to every
 * retry with the same body, marked `Idempotency-Replayed: true`, without the
 * request reaching the service again. The same key with another body or
 * operation is 422 idempotency_key_reused; a retry while the first attempt
 * still runs is 409 idempotency_key_in_use with Retry-After (not a wait: a
 * waiting duplicate would hold a connection and a slot for as long as the
 * upstream timeout, and a retrying client would pile them up).
 */
export function createIdempotency(deps: {
  sql: Pool;
  logger: Logger;
  upstreamTimeoutMs: number;
  /** How long one query of the store may take before the request is refused (503): a database that hangs holds no request longer. */
  databaseTimeoutMs: number;
  ttlMs?: number;
}) {
  const ttlMs = deps.ttlMs ?? IDEMPOTENCY_TTL_MS;
  // The attempt can take no longer than the forward's timeout; the margin covers storing its answer.
  const lockMs = deps.upstreamTimeoutMs + 5_000;
  const lateReleases = createLateReleases({ release: (ref, attemptId) => store.release(deps.sql, ref, attemptId), logger: deps.logger, timeoutMs: deps.databaseTimeoutMs, giveUpMs: ttlMs });
  const timedOut = () => new Error(`the database did not answer within ${deps.databaseTimeoutMs} ms`);

  function keyOf(input: IdempotentRequest): KeyRef | undefined {
    if (input.operation.method !== "POST") return undefined;
    const key = input.request.headers.get(IDEMPOTENCY_KEY_HEADER);
    if (key === null) return undefined;
    if (!WELL_FORMED_KEY.test(key)) {
      throw ApiError.badRequest(`Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters.`, [IDEMPOTENCY_KEY_FIELD], "format");
    }
    return { apiKeyId: input.apiKeyId, key };
  }

  /** Without the store there is no promise to keep: the request is refused, not run unguarded. */
  async function guarded<T>(work: Promise<T>): Promise<T> {
    try {
      return await settleWithin(work, deps.databaseTimeoutMs, timedOut);
    } catch (error) {
      deps.logger.warn("idempotency store unavailable", { error: error instanceof Error ? error.message : String(error) });
      throw new ApiError("service_unavailable", "Idempotency keys cannot be checked right now. Try again later.", {
        headers: { "retry-after": "1" },
      });
    }
  }

  /** Runs the request once per key: claims the key, or answers from what the key already holds. */
  async function run(input: IdempotentRequest, execute: () => Promise<Answer>): Promise<Answer> {
    try {
      return await runOnce(input, execute);
    } catch (error) {
      // No answer holds the room: a refusal or a failure is small, and made afresh.
      input.answerLease.release();
      throw error;
    }
  }

  async function runOnce(input: IdempotentRequest, execute: () => Promise<Answer>): Promise<Answer> {
    const ref = keyOf(input);
    if (!ref) return execute();
    const attempt = { id: crypto.randomUUID(), fingerprint: fingerprint(input.operation.operationId, input.access(), input.body), lockMs, ttlMs };
    for (let tries = 0; tries < 3; tries++) {
      if (await claim(ref, attempt)) return runClaimed(input, ref, attempt.id, execute);
      let existing = await guarded(store.read(deps.sql, ref));
      if (!existing) continue;
      if (!sameBytes(existing.fingerprint, attempt.fingerprint)) {
        throw new ApiError(
          "idempotency_key_reused",
          "This Idempotency-Key was used with another request body or operation, or while the API key had other access (scopes, teams). Use a new key for a new request.",
          { details: { fields: [IDEMPOTENCY_KEY_FIELD], errors: [{ field: IDEMPOTENCY_KEY_FIELD, rule: "unique", message: "Idempotency-Key was already used with another request body or operation, or other access" }] } },
        );
      }
      if (existing.state === "running" && existing.stale) {
        existing = await guarded(store.settleStale(deps.sql, ref, UNKNOWN_OUTCOME));
        if (!existing) continue;
      }
      if (existing.state === "running") {
        throw new ApiError("idempotency_key_in_use", "A request with this Idempotency-Key is still running. Retry shortly.", {
          headers: { "retry-after": "1" },
        });
      }
      const replayed = await replay(ref, existing.answer, input.answerLease);
      if (replayed) return replayed;
    }
    throw new ApiError("idempotency_key_in_use", "This Idempotency-Key is changing hands. Retry shortly.", { headers: { "retry-after": "1" } });
  }

  /**
   * Takes the key for this attempt. A claim refused for time (503) may still
   * land later: the key is let go once it has, so the retry the 503 invites
   * runs afresh.
   */
  async function claim(ref: KeyRef, attempt: Parameters<typeof store.claim>[2]): Promise<boolean> {
    const claiming = store.claim(deps.sql, ref, attempt);
    try {
      return await guarded(claiming);
    } catch (error) {
      claiming.then(
        (taken) => taken && lateReleases.add(ref, attempt.id),
        // Refused before it was sent, it never landed; lost on the way, it may have.
        (failure: unknown) => databaseFailure(failure) !== "not_executed" && lateReleases.add(ref, attempt.id),
      );
      throw error;
    }
  }

  /**
   * Notes that the attempt goes on to its service; refused (503) when that
   * cannot be noted, and the key let go: a record not noted as sent is deleted
   * once stale, never settled as an unknown outcome.
   */
  async function markForwarded(ref: KeyRef, attemptId: string): Promise<void> {
    let marked: boolean;
    try {
      marked = await guarded(store.markForwarded(deps.sql, ref, attemptId));
    } catch (error) {
      await letGo(ref, attemptId);
      throw error;
    }
    if (!marked) throw new ApiError("idempotency_key_in_use", "This Idempotency-Key is changing hands. Retry shortly.", { headers: { "retry-after": "1" } });
  }

  /**
   * The settled answer, its body read only once the lease has room for it, and
   * held until sent; undefined when the record changed meanwhile (it is read again).
   */
  async function replay(ref: KeyRef, answer: SettledAnswer, lease: BodyLease): Promise<Response | undefined> {
    const headers = new Headers(answer.headers);
    headers.set(REPLAYED_HEADER, "true");
    if (answer.status === 204) return bytesReleasedWhenSent(null, { status: answer.status, headers }, lease);
    lease.take(answer.bodyBytes);
    const body = await guarded(store.readBody(deps.sql, ref, answer.attempt));
    if (body === undefined || body.byteLength !== answer.bodyBytes) {
      lease.release();
      return undefined;
    }
    return bytesReleasedWhenSent(body, { status: answer.status, headers }, lease);
  }

  async function runClaimed(input: IdempotentRequest, ref: KeyRef, attemptId: string, execute: () => Promise<Answer>): Promise<Response> {
    await markForwarded(ref, attemptId);
    let response: Response;
    try {
      response = toResponse(await execute());
    } catch (error) {
      if (error instanceof ApiError && keeps(error.status)) await keep(ref, attemptId, error.toResponse(requestIdOf(input.request)));
      else await letGo(ref, attemptId);
      throw error;
    }
    if (!keeps(response.status)) {
      await letGo(ref, attemptId);
      return response;
    }
    const lease = input.answerLease;
    const body = await keep(ref, attemptId, response, lease);
    return bytesReleasedWhenSent(response.status === 204 ? null : body, { status: response.status, headers: response.headers }, lease);
  }

  /**
   * Stores the answer for the key's retries; returns its body, which reading it
   * has used up. The work is done, so its bytes are held in `lease`, never refused.
   */
  async function keep(ref: KeyRef, attemptId: string, response: Response, lease?: BodyLease): Promise<Uint8Array> {
    const body = new Uint8Array(await response.arrayBuffer());
    lease?.hold(body.byteLength);
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    try {
      // Bounded: the work is done and its answer is not held back for a database that hangs.
      const stored = await settleWithin(store.complete(deps.sql, ref, attemptId, { status: response.status, headers, body }), deps.databaseTimeoutMs, timedOut);
      if (!stored) deps.logger.warn("idempotency key lost before its answer was stored", { key: ref.key });
    } catch (error) {
      // The client still gets its answer; a retry finds the key held until its lock runs out, then an unknown outcome.
      deps.logger.warn("idempotency answer not stored", { error: error instanceof Error ? error.message : String(error) });
    }
    return body;
  }

  /** Lets the key go for a retry to run afresh; when the database cannot take that now, later (late-releases.ts). */
  async function letGo(ref: KeyRef, attemptId: string): Promise<void> {
    const releasing = store.release(deps.sql, ref, attemptId);
    try {
      await settleWithin(releasing, deps.databaseTimeoutMs, timedOut);
    } catch (error) {
      deps.logger.warn("idempotency key not released yet: tried again until it is", { error: error instanceof Error ? error.message : String(error) });
      // Failed, or still on its way (it may land yet): tried again once it has failed.
      releasing.catch(() => lateReleases.add(ref, attemptId));
    }
  }

  /** Deletes expired records in batches; a claim overwrites an expired record anyway, so this only frees space. */
  async function purgeExpired(): Promise<number> {
    let total = 0;
    for (;;) {
      const purged = await store.purgeExpired(deps.sql, PURGE_BATCH);
      total += purged;
      if (purged < PURGE_BATCH) return total;
    }
  }

  return { run, purgeExpired };
}
export type Idempotency = ReturnType<typeof createIdempotency>;

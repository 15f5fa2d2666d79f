import type { ApiError } from "../errors/api-error";
import { notExecuted, outcomeUnknown } from "../http/deadline";
import { SAFE_METHODS } from "../http/safe-methods";

/**
 * What a failed database call says about its statement, when the database
 * (not the statement) failed:
 * - `not_executed`: the statement never ran or was aborted by the server (no
 *   connection, connection refused, server shutting down, statement cancelled
 *   by its timeout, lock or serialization conflict): nothing of it persists.
 * - `connection_lost`: the connection broke with the statement in flight; a
 *   COMMIT sent just before may or may not have been applied.
 * Anything else (a constraint, a bug) is not a database failure: undefined.
 */
export type DatabaseFailure = "not_executed" | "connection_lost";

/** Node socket errors before a connection existed, and the driver's own "never sent" codes. */
const NEVER_CONNECTED = new Set([
  "ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ConnectionRefused",
  "CONNECT_TIMEOUT", "CONNECTION_ENDED",
]);
const LOST_IN_FLIGHT = new Set(["CONNECTION_CLOSED", "CONNECTION_DESTROYED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ECONNABORTED"]);

/** SQLSTATEs of a statement the server refused or aborted (classes 53, 57, 08 on connect, 40, and lock_not_available). */
const SERVER_ABORTED = new Set(["57014", "57P01", "57P02", "57P03", "57P04", "53300", "53400", "08001", "08004", "40001", "40P01", "55P03"]);
/** SQLSTATEs of a connection that broke. */
const SERVER_LOST = new Set(["08000", "08003", "08006"]);

export function databaseFailure(error: unknown): DatabaseFailure | undefined {
  if (!error || typeof error !== "object") return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string") return undefined;
  // A PostgresError carries the server's SQLSTATE; other errors come from the socket or the driver.
  const fromServer = (error as { name?: unknown }).name === "PostgresError";
  if (fromServer) return SERVER_ABORTED.has(code) ? "not_executed" : SERVER_LOST.has(code) ? "connection_lost" : undefined;
  if (NEVER_CONNECTED.has(code)) return "not_executed";
  if (LOST_IN_FLIGHT.has(code)) return "connection_lost";
  return undefined;
}


/**
 * The answer for a request that failed because the database did: 503 "not
 * executed" when nothing of it ran (or it only read), 502 "outcome unknown"
 * when a write's connection broke in flight. Undefined for other errors.
 */
export function databaseErrorAnswer(error: unknown, method: string): ApiError | undefined {
  const failure = databaseFailure(error);
  if (!failure) return undefined;
  if (failure === "not_executed" || SAFE_METHODS.has(method.toUpperCase())) return notExecuted("The database is unavailable.");
  return outcomeUnknown("The database connection was lost while the request was being executed.");
}

import process from "node:process";
import { flushLogs, type Logger } from "../observability/logger";
import { databaseFailure } from "./database-errors";

let installed = false;
let log: Logger | undefined;

/** The driver names the query a failure belongs to; its own first query reads the array types from pg_type. */
function isDriversOwnQuery(reason: unknown): boolean {
  const query = (reason as { query?: unknown } | null)?.query;
  return typeof query === "string" && query.includes("pg_catalog.pg_type");
}

/**
 * Server errors after which the connection is gone (the backend was terminated,
 * the server is shutting down or starting, the connection broke). A statement
 * timeout or a lock conflict leaves the connection open but without the array
 * types the driver failed to read: that is not survivable, and not swallowed.
 */
const CONNECTION_ENDING_SQLSTATES = new Set(["57P01", "57P02", "57P03", "08000", "08003", "08006"]);

function connectionEnded(reason: unknown): boolean {
  if ((reason as { name?: unknown }).name === "PostgresError") return CONNECTION_ENDING_SQLSTATES.has(String((reason as { code?: unknown }).code));
  return databaseFailure(reason) !== undefined;
}

/**
 * The `postgres` driver (3.4.x) sends a query of its own first on every new
 * connection (the catalog of array types) and drops that query's promise: when
 * the connection breaks just then (a backend terminated, PostgreSQL restarting),
 * its failure surfaces as an unhandled rejection, and an unhandled rejection
 * ends a Bun or Deno process. The failure is the database's, and the driver
 * already fails the request that was waiting on that connection and connects
 * again: such a rejection is logged and the process goes on. Any other
 * unhandled rejection is a bug of ours and still ends the process, logged.
 *
 * For a process's entry (a test runner keeps its own handling): called again
 * with the process's logger once it has one.
 */
export function surviveDriverConnectionFailures(logger?: Logger): void {
  log = logger ?? log;
  if (installed) return;
  installed = true;
  process.on("unhandledRejection", (reason: unknown) => {
    if (isDriversOwnQuery(reason) && connectionEnded(reason)) {
      log?.warn("a database connection broke while the driver set it up", { error: String(reason) });
      return;
    }
    const error = reason instanceof Error ? (reason.stack ?? String(reason)) : String(reason);
    if (log) log.error("unhandled rejection: stopping", { error });
    else console.error("unhandled rejection: stopping", error);
    flushLogs();
    process.exit(1);
  });
}

import { ApiError } from "../errors/api-error";
import { notExecuted, outcomeUnknown, type Deadline } from "../http/deadline";
import { databaseFailure } from "./database-errors";
import type { Pool, TransactionSql } from "./database";
import { transaction } from "./transaction";

/**
 * A write transaction that commits only within the request's deadline, so that
 * whatever commits does so before the caller is answered, and a request
 * answered as failed never takes effect later: it does not start once the
 * deadline has passed, each of its statements is cancelled by PostgreSQL at the
 * deadline (`statement_timeout`), and it rolls back instead of committing when
 * the deadline passed meanwhile. A database failure before COMMIT is a 503 (not
 * executed: PostgreSQL rolls back a transaction whose connection is gone); a
 * connection lost during COMMIT is a 502 (outcome unknown).
 */
export async function writeWithin<T>(sql: Pool, deadline: Deadline, work: (tx: TransactionSql) => Promise<T>): Promise<T> {
  deadline.assertTimeLeft();
  let committing = false;
  try {
    return await transaction(sql, "", async (tx) => {
      // Sent now and not awaited: the work's first statement follows it on the same connection, in one round trip.
      // A later write of a request one of whose writes already committed (a management change in steps) is not bounded again.
      const limited = deadline.committing ? undefined : tx.unsafe(`set local statement_timeout = ${Math.max(1, Math.ceil(deadline.remainingMs()))}`).execute();
      limited?.catch(() => {});
      const result = await work(tx);
      await limited;
      if (!deadline.beginCommit()) throw notExecuted("The request was not completed before its deadline.");
      committing = true;
      return result;
    });
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const failure = databaseFailure(error);
    if (!failure) throw error;
    if (committing && failure === "connection_lost") throw outcomeUnknown("The database connection was lost while the change was being committed.");
    throw notExecuted("The database is unavailable.");
  }
}

import { databaseFailure } from "./database-errors";
import type { Pool, TransactionSql } from "./database";

/**
 * `sql.begin`, except that once the transaction's connection is lost the driver
 * is not left to send ROLLBACK on it. postgres.js 3.4.9 writes that ROLLBACK to
 * the closed socket from a timer, which throws where nothing can catch it and
 * ends the process (porsager/postgres#1066). PostgreSQL rolls back a
 * transaction whose connection is gone by itself, and the driver rejects the
 * transaction with the connection's loss, which is what this rejects with.
 */
export function transaction<T>(sql: Pool, options: string, work: (tx: TransactionSql) => Promise<T>): Promise<T> {
  return sql.begin(options, async (tx) => {
    try {
      return await work(tx);
    } catch (error) {
      if (databaseFailure(error) === "connection_lost") return new Promise<never>(() => {});
      throw error;
    }
  }) as Promise<T>;
}

import { ApiError } from "../errors/api-error";
import { DEFAULT_PER_PAGE, MAX_PAGE, MAX_PER_PAGE } from "../schemas/list";
import type { Pool, TransactionSql } from "./database";
import { transaction } from "./transaction";

export interface Paging {
  page: number;
  perPage: number;
  /** Rows to skip; capped, so that a page number far past the end (up to the largest number) cannot overflow. */
  offset: number;
}

const PAGING_RANGES: Record<"page" | "per_page", { min: number; max?: number }> = { page: { min: 1, max: MAX_PAGE }, per_page: { min: 1 } };

/**
 * Defaults 1 and 20, per_page above 100 answered with 100; a page that is not
 * an integer from 1 to MAX_PAGE, or a per_page not one of at least 1, is
 * refused with the service's validation code (pages 422, calendar 400),
 * naming the parameters.
 */
export function resolvePaging(query: { page?: number; per_page?: number }, code: "validation_error" | "bad_request"): Paging {
  const invalid = (["page", "per_page"] as const).filter((name) => {
    const value = query[name];
    const { min, max = Infinity } = PAGING_RANGES[name];
    return value !== undefined && !(Number.isInteger(value) && value >= min && value <= max);
  });
  if (invalid.length) {
    throw ApiError.invalid(
      code,
      invalid.map((field) => {
        const allowed = PAGING_RANGES[field];
        const range = allowed.max === undefined ? "of at least 1" : `from 1 to ${allowed.max}`;
        return { field, rule: "range", message: `${field} must be an integer ${range} (got ${String(query[field])})`, allowed };
      }),
    );
  }
  const page = query.page ?? 1;
  const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page, perPage, offset: Math.min((page - 1) * perPage, Number.MAX_SAFE_INTEGER) };
}

export interface ListReads<T> {
  count(tx: TransactionSql): Promise<number>;
  rows(tx: TransactionSql, limit: number, offset: number): Promise<T[]>;
}

/**
 * One page of a list in the list envelope. The total and the rows are
 * read in one repeatable-read snapshot, so they agree while others write, and
 * a page past the end reads no rows at all.
 */
export function readList<T>(sql: Pool, paging: Paging, reads: ListReads<T>): Promise<{ data: T[]; total: number; page: number; per_page: number }> {
  return transaction(sql, "isolation level repeatable read read only", async (tx) => {
    const total = await reads.count(tx);
    const data = paging.offset < total ? await reads.rows(tx, paging.perPage, paging.offset) : [];
    return { data, total, page: paging.page, per_page: paging.perPage };
  });
}

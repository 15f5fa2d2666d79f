import { ApiError } from "../errors/api-error";
import { integerOutOfBounds, type IntegerBounds } from "../errors/field-errors";
import { DEFAULT_PER_PAGE, MAX_PER_PAGE, PagingQuery } from "../schemas/list";
import type { Pool, TransactionSql } from "./database";
import { transaction } from "./transaction";

export interface Paging {
  page: number;
  perPage: number;
  /** Rows to skip; capped, so that a page number far past the end (up to the largest number) cannot overflow. */
  offset: number;
}

/**
 * Defaults 1 and 20, per_page above 100 answered with 100; a value outside the
 * bounds PagingQuery states (page 1 to MAX_PAGE, per_page at least 1) is
 * refused with the service's validation code (pages 422, calendar 400), naming
 * the parameters.
 */
export function resolvePaging(query: { page?: number; per_page?: number }, code: "validation_error" | "bad_request"): Paging {
  const refused = (["page", "per_page"] as const).flatMap((name) => {
    const value = query[name];
    const bounds = PagingQuery[name] as IntegerBounds;
    const inBounds = Number.isInteger(value) && value! >= (bounds.minimum ?? -Infinity) && value! <= (bounds.maximum ?? Infinity);
    return value === undefined || inBounds ? [] : [integerOutOfBounds(name, String(value), bounds)];
  });
  if (refused.length) throw ApiError.invalid(code, refused);
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

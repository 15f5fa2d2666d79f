import { ApiError, DEFAULT_PER_PAGE, MAX_PER_PAGE } from "@ws/shared";

export interface Pagination {
  page: number;
  perPage: number;
  /** Null when the page lies beyond anything Postgres can offset to: it is simply empty. */
  offset: number | null;
}

/** Page and per_page as for pages: defaults 1 and 20, per_page above 100 answered with 100. */
export function pagination(query: { page?: number; per_page?: number }): Pagination {
  // Elysia's coercing t.Integer lets "0" and "-1" through its minimum, so the bound is held here.
  for (const name of ["page", "per_page"] as const) {
    const value = query[name];
    if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
      throw ApiError.badRequest(`${name} must be an integer of at least 1.`, [name]);
    }
  }
  const page = query.page ?? 1;
  const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  const offset = (page - 1) * perPage;
  return { page, perPage, offset: Number.isSafeInteger(offset) ? offset : null };
}

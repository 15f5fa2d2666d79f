import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from "@ws/shared";

export interface Pagination {
  page: number;
  perPage: number;
  /** Null when the page lies beyond anything Postgres can offset to: it is simply empty. */
  offset: number | null;
}

/** Page and per_page as for pages: defaults 1 and 20, per_page above 100 answered with 100. */
export function pagination(query: { page?: number; per_page?: number }): Pagination {
  const page = query.page ?? 1;
  const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  const offset = (page - 1) * perPage;
  return { page, perPage, offset: Number.isSafeInteger(offset) ? offset : null };
}

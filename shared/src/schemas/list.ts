import { t, type TSchema } from "elysia";

/** Spec 2.5: the envelope of every list response. */
export function ListEnvelope<T extends TSchema>(item: T, title: string) {
  return t.Object(
    {
      data: t.Array(item),
      total: t.Integer({ minimum: 0, description: "Number of items across all result pages." }),
      page: t.Integer({ minimum: 1, description: "The result page returned." }),
      per_page: t.Integer({ minimum: 1, maximum: 100, description: "The page size used for this response." }),
    },
    { title },
  );
}

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 20;

/**
 * The `page` and `per_page` query parameters of every list (spec 4.3; the
 * calendar's "as for pages", contract 5). Their minimum of 1 is checked by
 * resolvePaging: Elysia's coercing t.Integer reports a failed minimum without
 * the parameter's name.
 */
export const PagingQuery = {
  page: t.Optional(
    t.Integer({ default: 1, description: "Result page number, at least 1; past the end answers 200 with empty data.", examples: [1] }),
  ),
  per_page: t.Optional(
    t.Integer({
      default: DEFAULT_PER_PAGE,
      description: `Page size, at least 1, default ${DEFAULT_PER_PAGE}; values above ${MAX_PER_PAGE} are clamped to ${MAX_PER_PAGE}.`,
      examples: [DEFAULT_PER_PAGE],
    }),
  ),
};

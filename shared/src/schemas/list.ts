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

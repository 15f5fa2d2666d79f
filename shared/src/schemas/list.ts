import { Type } from "@sinclair/typebox";
import { t, type TSchema } from "elysia";

/** The envelope of every list response. */
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
/** The largest page a JSON number holds exactly: the envelope reports the page back as it was asked for. */
export const MAX_PAGE = Number.MAX_SAFE_INTEGER;

/**
 * The `page` and `per_page` query parameters of every list (the
 * calendar's "as for pages"). Integers written in decimal digits only: the
 * operation mount reads them strictly (`0x10`, `1e1`, `+1`, ` 1`, `1.0` are
 * refused naming the parameter), so the schema is the plain JSON integer the
 * document shows, bounds included. Any page past the end is an empty page, up
 * to MAX_PAGE, and any page size above the most is that most.
 */
export const PagingQuery = {
  page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE,
      default: 1,
      description: `Result page number, 1 to ${MAX_PAGE}, in decimal digits; past the end answers 200 with empty data.`,
      examples: [1],
    }),
  ),
  per_page: Type.Optional(
    Type.Integer({
      minimum: 1,
      default: DEFAULT_PER_PAGE,
      description: `Page size, at least 1, in decimal digits, default ${DEFAULT_PER_PAGE}; values above ${MAX_PER_PAGE} are clamped to ${MAX_PER_PAGE}.`,
      examples: [DEFAULT_PER_PAGE],
    }),
  ),
};

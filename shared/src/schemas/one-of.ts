import { t } from "elysia";

/**
 * A string that is one of `values`. Elysia's t.UnionEnum also sets `default`
 * to the first value, which Elysia then fills into a request that leaves the
 * field out (an empty PATCH would set a role); this one has no default unless
 * given one.
 */
export function OneOf<const Values extends readonly [string, ...string[]]>(values: Values, options: { description?: string; default?: Values[number]; examples?: string[] } = {}) {
  const schema = t.UnionEnum([...values] as [Values[number], ...Values[number][]], options);
  if (options.default === undefined) delete (schema as { default?: unknown }).default;
  return schema;
}

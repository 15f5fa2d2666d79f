import { t, type Static, type TSchema } from "elysia";
import type { StreamedJson } from "./streamed-json";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type SuccessStatus = 200 | 201 | 204;

/**
 * What any table of operations says about one operation, enough to serve it:
 * the route, the request schemas and the success answer. Path parameters are
 * not listed: every `:name` in the path is one.
 */
export interface OperationShape {
  method: HttpMethod;
  /** Elysia-style (`/v1/new-page/:id`); a trailing slash is always optional. */
  path: string;
  /** An object schema, one property per parameter. */
  query?: TSchema;
  body?: TSchema;
  success: { status: SuccessStatus; schema?: TSchema };
}

type ParamNames<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? Name
    : never;

/** What a handler of the operation is given: its path parameters, query and body, already checked against their schemas. */
export type OperationInput<Op extends OperationShape> = ([ParamNames<Op["path"]>] extends [never]
  ? unknown
  : { params: Record<ParamNames<Op["path"]>, string> }) &
  (Op extends { query: infer Query extends TSchema } ? { query: Static<Query> } : unknown) &
  (Op extends { body: infer Body extends TSchema } ? { body: Static<Body> } : unknown);

/** What a handler returns: the success schema's value (whole, or streamed), nothing for a 204, anything when the table gives no schema. */
export type OperationOutput<Op extends OperationShape> = Op extends { success: { schema: infer Schema extends TSchema } }
  ? Static<Schema> | StreamedJson
  : Op extends { success: { status: 204 } }
    ? void
    : unknown;

export type OperationHandler<Op extends OperationShape, Context = unknown> = (
  input: Context & OperationInput<Op>,
) => OperationOutput<Op> | Promise<OperationOutput<Op>>;

/** One handler for every operation of a table, typed from its entry. */
export type OperationHandlers<Table extends Record<string, OperationShape>, Context = unknown> = {
  [Id in keyof Table]: OperationHandler<Table[Id], Context>;
};

export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map(([, name]) => name!);
}

export const PATH_ID_DESCRIPTION = "The resource id (a UUID). A malformed, unknown, deleted or foreign id answers 404.";

/** Path parameters are ids, strings on the wire; undefined for a path without any. */
export function paramsSchema(path: string): TSchema | undefined {
  const names = pathParamNames(path);
  if (names.length === 0) return undefined;
  return t.Object(Object.fromEntries(names.map((name) => [name, t.String({ description: PATH_ID_DESCRIPTION })])));
}

/** `/v1/new-page/:id` with `{ id: "x" }` → `/v1/new-page/x`, each value URL-encoded. */
export function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${path} needs the path parameter ${name}.`);
    return encodeURIComponent(value);
  });
}

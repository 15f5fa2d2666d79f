import { t, type AnyElysia, type TSchema } from "elysia";
import { ApiError } from "../errors/api-error";
import { DECIMAL_DIGITS, integerOutOfBounds, type FieldError, type IntegerBounds } from "../errors/field-errors";
import { noContent } from "../http/json-body";
import { unknownClosedMembers } from "./closed-objects";
import { dropInheritedNames } from "./inherited-names";
import { StreamedJson } from "./streamed-json";
import { paramsSchema, type OperationHandlers, type OperationShape } from "./operation";

/** The part of Elysia's handler context every operation reads. */
interface RouteContext {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  request: Request;
  set: { status?: number | string; headers: Record<string, string | number> };
}

/** What the mount tells `answer` about a result it is about to send. */
export interface OperationResult {
  operationId: string;
  operation: OperationShape;
  request: Request;
  result: unknown;
}

export interface MountOptions<Context> {
  /** Picks what the app derived for the request (the principal, say) from Elysia's handler context. */
  context?: (elysiaContext: Record<string, unknown>) => Context;
  /**
   * How a value the schema check does not see is refused (with the field named):
   * a query integer past its bounds, an unknown member of a closed object; 422
   * validation_error by default.
   */
  validationCode?: "validation_error" | "bad_request";
  /** Headers to send with a result, or a response to send instead of it (a 304, say). */
  answer?: (result: OperationResult) => { headers?: Record<string, string>; response?: Response } | undefined;
  /** Adds to each route's options: its `detail` for a generated document, the error statuses it declares in `response`. */
  describe?: (operationId: string, operation: OperationShape) => { detail?: object; response?: Record<number, TSchema> };
}



/**
 * The query schema as the request carries it: every integer parameter is a
 * string of decimal digits (Elysia's own integer coercion would read `0x10` as
 * 16), converted afterwards by readIntegers against the schema's bounds.
 */
function wireQuery(query: TSchema): { schema: TSchema; integers: Map<string, IntegerBounds> } {
  const properties = (query.properties ?? {}) as Record<string, TSchema>;
  const required = new Set<string>((query.required ?? []) as string[]);
  const integers = new Map<string, IntegerBounds>();
  const wire: Record<string, TSchema> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (schema.type !== "integer") {
      wire[name] = schema;
      continue;
    }
    integers.set(name, { minimum: schema.minimum as number | undefined, maximum: schema.maximum as number | undefined });
    const digits = t.String({ pattern: DECIMAL_DIGITS });
    wire[name] = required.has(name) ? digits : t.Optional(digits);
  }
  if (integers.size === 0) return { schema: query, integers };
  return { schema: t.Object(wire), integers };
}

/**
 * Decimal digits as a number: past 2^53 the nearest one (past the largest
 * number, the largest), which its bounds then judge: a page that large is
 * refused (MAX_PAGE), a page size above its clamp is the clamp.
 */
function digitsValue(text: string): number {
  const value = Number(text);
  return Number.isFinite(value) ? value : Number.MAX_VALUE;
}

function readIntegers(query: Record<string, unknown>, integers: Map<string, IntegerBounds>, code: "validation_error" | "bad_request"): Record<string, unknown> {
  if (integers.size === 0) return query;
  const read: Record<string, unknown> = { ...query };
  const refused: FieldError[] = [];
  for (const [name, bounds] of integers) {
    const text = query[name];
    if (typeof text !== "string") continue;
    const value = digitsValue(text);
    const inBounds = value >= (bounds.minimum ?? -Infinity) && value <= (bounds.maximum ?? Infinity);
    if (inBounds) read[name] = value;
    else refused.push(integerOutOfBounds(name, text, bounds));
  }
  if (refused.length) throw ApiError.invalid(code, refused);
  return read;
}

/**
 * Registers every operation of a table on the app, each with its method, path
 * and schemas from the table, answered by the handler of the same operationId.
 * A table entry without a handler, or a handler without an entry, stops the
 * process at start: nothing is served that the table does not hold.
 */
export function mountOperations<App extends AnyElysia, Table extends Record<string, OperationShape>, Context = unknown>(
  app: App,
  operations: Table,
  handlers: OperationHandlers<Table, Context>,
  options: MountOptions<Context> = {},
): App {
  for (const operationId of Object.keys(handlers)) {
    if (!Object.hasOwn(operations, operationId)) throw new Error(`${operationId} has a handler but no entry in the operation table.`);
  }
  for (const [operationId, operation] of Object.entries(operations)) {
    const handler = (handlers as Record<string, ((input: object) => unknown) | undefined>)[operationId];
    if (!handler) throw new Error(`The operation ${operationId} has no handler.`);
    const { status, schema } = operation.success;
    const params = paramsSchema(operation.path);
    const described = options.describe?.(operationId, operation) ?? {};
    const query = operation.query ? wireQuery(operation.query) : undefined;
    app.route(
      operation.method,
      operation.path,
      async (elysiaContext: Record<string, unknown>) => {
        const route = elysiaContext as unknown as RouteContext;
        const input = {
          ...(options.context?.(elysiaContext) as object),
          params: route.params,
          query: query ? readIntegers(route.query, query.integers, options.validationCode ?? "validation_error") : route.query,
          body: route.body,
        };
        const result = await handler(input);
        if (status === 204) return noContent();
        const streamed = result instanceof StreamedJson ? result : undefined;
        const answer = options.answer?.({ operationId, operation, request: route.request, result: streamed ? streamed.about : result });
        if (answer?.response) {
          void streamed?.body.cancel();
          return answer.response;
        }
        if (streamed) return new Response(streamed.body, { status, headers: { ...answer?.headers, "content-type": "application/json" } });
        for (const [name, value] of Object.entries(answer?.headers ?? {})) route.set.headers[name] = value;
        route.set.status = status;
        return result;
      },
      {
        // Before the schema check, which would refuse them (inherited-names.ts).
        transform: (elysiaContext: Record<string, unknown>) => {
          // First: a closed object's `constructor` is an unknown name too, not a field to drop.
          const unknown = unknownClosedMembers(elysiaContext.body, operation.body);
          if (unknown.length > 0) throw ApiError.invalid(options.validationCode ?? "validation_error", unknown);
          dropInheritedNames(elysiaContext.query, query?.schema);
          dropInheritedNames(elysiaContext.body, operation.body);
        },
        ...(params ? { params } : {}),
        ...(query ? { query: query.schema } : {}),
        ...(operation.body ? { body: operation.body } : {}),
        ...(described.detail ? { detail: described.detail } : {}),
        ...(schema || described.response ? { response: { ...described.response, ...(schema ? { [status]: schema } : {}) } } : {}),
      },
    );
  }
  return app;
}

import type { AnyElysia, TSchema } from "elysia";
import { noContent } from "../http/json-body";
import { paramsSchema, type OperationHandlers, type OperationShape } from "./operation";

/** The part of Elysia's handler context every operation reads. */
interface RouteContext {
  params: Record<string, string>;
  query: unknown;
  body: unknown;
  set: { status?: number | string };
}

/**
 * Registers every operation of a table on the app, each with its method, path
 * and schemas from the table, answered by the handler of the same operationId.
 * A table entry without a handler, or a handler without an entry, stops the
 * process at start: nothing is served that the table does not hold.
 * `context` picks what the app derived for the request (the principal, say)
 * from Elysia's handler context. `describe` adds to each route's options
 * (its `detail` for a generated document, the error statuses it declares in
 * `response`).
 */
export function mountOperations<App extends AnyElysia, Table extends Record<string, OperationShape>, Context = unknown>(
  app: App,
  operations: Table,
  handlers: OperationHandlers<Table, Context>,
  context?: (elysiaContext: Record<string, unknown>) => Context,
  describe?: (operationId: string, operation: Table[keyof Table]) => { detail?: object; response?: Record<number, TSchema> },
): App {
  for (const operationId of Object.keys(handlers)) {
    if (!Object.hasOwn(operations, operationId)) throw new Error(`${operationId} has a handler but no entry in the operation table.`);
  }
  for (const [operationId, operation] of Object.entries(operations)) {
    const handler = (handlers as Record<string, ((input: object) => unknown) | undefined>)[operationId];
    if (!handler) throw new Error(`The operation ${operationId} has no handler.`);
    const { status, schema } = operation.success;
    const params = paramsSchema(operation.path);
    const described = describe?.(operationId, operation as Table[keyof Table]) ?? {};
    app.route(
      operation.method,
      operation.path,
      async (elysiaContext: Record<string, unknown>) => {
        const route = elysiaContext as unknown as RouteContext;
        const result = await handler({ ...(context?.(elysiaContext) as object), params: route.params, query: route.query, body: route.body });
        if (status === 204) return noContent();
        route.set.status = status;
        return result;
      },
      {
        ...(params ? { params } : {}),
        ...(operation.query ? { query: operation.query } : {}),
        ...(operation.body ? { body: operation.body } : {}),
        ...(described.detail ? { detail: described.detail } : {}),
        ...(schema || described.response ? { response: { ...described.response, ...(schema ? { [status]: schema } : {}) } } : {}),
      },
    );
  }
  return app;
}

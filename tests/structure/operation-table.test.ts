import { afterAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import postgres from "postgres";
import {
  INTERNAL_SERVICE_PREFIX,
  PUBLIC_OPERATIONS,
  PUBLIC_OPERATION_LIST,
  UNAUTHENTICATED_SERVICE_PATHS,
  createLogger,
  fillPath,
  mountOperations,
  serviceApp,
  signingKeyFrom,
  type ServiceDeps,
  type ServiceName,
} from "@ws/shared";
import { createRouteTable } from "../../gateway/src/routing/route-table";
import { buildOpenApiDocument, openApiPath } from "../../gateway/src/openapi/document";
import { operationErrors } from "../../gateway/src/openapi/operation-errors";
import { OPERATIONAL_PATHS } from "../../gateway/src/openapi/operational-paths";
import { createApp as createPagesApp } from "../../services/pages/src/app";
import { createApp as createCalendarApp } from "../../services/calendar/src/app";

// Building an app opens no connection: this pool is handed over but never queried.
const sql = postgres("postgres://unused@127.0.0.1:9/unused", { max: 1 });
afterAll(() => sql.end());
const deps: ServiceDeps = { sql, principalKeys: [signingKeyFrom("x".repeat(32))], logger: createLogger("test", "silent"), isDraining: () => false };
const SERVICE_APPS: Record<ServiceName, (deps: ServiceDeps) => { routes: { method: string; path: string }[] }> = {
  pages: createPagesApp,
  calendar: createCalendarApp,
};

const ID = "01936f3e-8a4b-7c2d-9e1f-0a1b2c3d4e5f";
const operationKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
const tableKeys = (service?: ServiceName) =>
  PUBLIC_OPERATION_LIST.filter((operation) => !service || operation.service === service)
    .map((operation) => operationKey(operation.method, operation.path))
    .sort();

describe("the public operation table and the gateway's routing", () => {
  const routes = createRouteTable();

  test("when each operation's path is requested with its method, then routing finds that operation, with or without a trailing slash", () => {
    for (const operation of PUBLIC_OPERATION_LIST) {
      const path = fillPath(operation.path, { id: ID });
      for (const requested of [path, `${path}/`]) {
        const match = routes.match(operation.method, requested);
        expect(match.kind === "found" ? match.route.operationId : match.kind).toBe(operation.operationId);
      }
    }
  });

  test("when a path of the table is requested with another method, then routing answers 405 allowing exactly the table's methods there", () => {
    for (const operation of PUBLIC_OPERATION_LIST) {
      const methods = PUBLIC_OPERATION_LIST.filter((other) => other.path === operation.path).map((other) => other.method);
      expect(routes.match("OPTIONS", fillPath(operation.path, { id: ID }))).toEqual({ kind: "method_not_allowed", allow: methods });
    }
  });
});

describe("the public operation table and the OpenAPI document", () => {
  const paths = buildOpenApiDocument().paths as Record<string, Record<string, { responses: object }>>;
  const documented = Object.entries(paths).filter(([path]) => !Object.hasOwn(OPERATIONAL_PATHS, path));

  test("when the document is generated, then it holds exactly the table's operations", () => {
    const keys = documented.flatMap(([path, item]) => Object.keys(item).map((method) => operationKey(method, path))).sort();
    expect(keys).toEqual(PUBLIC_OPERATION_LIST.map((operation) => operationKey(operation.method, openApiPath(operation.path))).sort());
  });

  test("when the document is generated, then each operation answers its success and exactly the statuses derived from its entry", () => {
    for (const operation of PUBLIC_OPERATION_LIST) {
      const responses = paths[openApiPath(operation.path)]![operation.method.toLowerCase()]!.responses;
      const expected = [operation.success.status, ...operationErrors(operation).keys()].map(String).sort();
      expect(`${operation.operationId}: ${Object.keys(responses).sort()}`).toBe(`${operation.operationId}: ${expected}`);
    }
  });

  test("when statuses are derived, then each follows from what the operation takes and which service answers it", () => {
    const statuses = (id: keyof typeof PUBLIC_OPERATIONS) => [...operationErrors(PUBLIC_OPERATIONS[id]).keys()];
    const gateway = [401, 403, 413, 429, 431, 500, 502, 503, 504];
    // The calendar answers a bad query with 400, pages with 422; only an id in the path makes a 404.
    expect(statuses("listCalendarEvents")).toEqual([400, ...gateway].sort());
    expect(statuses("listPages")).toEqual([...gateway, 422].sort());
    expect(statuses("getPage")).toEqual([404, ...gateway].sort());
    expect(statuses("deletePage")).toEqual([404, ...gateway].sort());
    // A body brings 400 (not JSON); the calendar's one rule with another code brings its status.
    expect(statuses("createPage")).toEqual([400, ...gateway, 422].sort());
    expect(statuses("createCalendarEvent")).toEqual([400, 404, ...gateway, 422].sort());
  });
});

describe("the public operation table and the services", () => {
  for (const service of Object.keys(SERVICE_APPS) as ServiceName[]) {
    test(`when the ${service} app is built, then it serves exactly its operations of the table and nothing else`, () => {
      const served = SERVICE_APPS[service](deps)
        .routes.filter((route) => !UNAUTHENTICATED_SERVICE_PATHS.has(route.path) && !route.path.startsWith(INTERNAL_SERVICE_PREFIX))
        .map((route) => operationKey(route.method, route.path))
        .sort();
      expect(served).toEqual(tableKeys(service));
    });
  }

  test("when an operation of the table has no handler, or a handler no operation, then serving fails at start", () => {
    const { getPage } = PUBLIC_OPERATIONS;
    // @ts-expect-error the type says so too
    expect(() => mountOperations(new Elysia(), { getPage }, {})).toThrow("getPage has no handler");
    const page = { id: ID, title: "t", content: "", team_id: null, created_at: "", updated_at: "" };
    // @ts-expect-error the type says so too
    expect(() => mountOperations(new Elysia(), { getPage }, { getPage: () => page, getPages: () => page })).toThrow("getPages has a handler but no entry");
  });
});

/** Never called: type-checked only, so `npm run typecheck` fails if a service could leave out an operation or add one. */
export function serviceHandlersAreCheckedAtCompileTime() {
  const page = { id: ID, title: "t", content: "", team_id: null, created_at: "", updated_at: "" };
  const internals = { purgeWorkspace: async () => ({}) };
  // @ts-expect-error the calendar's four operations all need a handler
  serviceApp(deps, "calendar", { createCalendar: () => ({ id: ID, name: "n", team_id: null, created_at: "" }) }, internals);
  const pageHandlers = { listPages: () => ({ data: [page], total: 1, page: 1, per_page: 20 }), createPage: () => page, getPage: () => page, updatePage: () => page, deletePage: () => {} };
  // @ts-expect-error a service must say how it deletes a workspace's data
  serviceApp(deps, "pages", pageHandlers);
  serviceApp(deps, "pages", {
    listPages: () => ({ data: [page], total: 1, page: 1, per_page: 20 }),
    createPage: () => page,
    getPage: ({ params }) => ({ ...page, id: params.id }),
    updatePage: () => page,
    deletePage: () => {},
    // @ts-expect-error an operation that is not in the table cannot be served
    renamePage: () => page,
  }, internals);
}

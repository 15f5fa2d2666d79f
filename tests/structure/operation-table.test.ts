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
import { operationErrors, readsConditionally } from "../../gateway/src/openapi/operation-errors";
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

  test("when a path of the table is requested with another method, then routing answers 405 allowing exactly the table's methods there, and HEAD beside GET", () => {
    for (const operation of PUBLIC_OPERATION_LIST) {
      const methods = PUBLIC_OPERATION_LIST.filter((other) => other.path === operation.path).flatMap((other) =>
        other.method === "GET" ? ["GET", "HEAD"] : [other.method],
      );
      expect(routes.match("OPTIONS", fillPath(operation.path, { id: ID }))).toEqual({ kind: "method_not_allowed", allow: methods });
    }
  });

  test("when HEAD is requested where GET is served, then routing finds the GET operation", () => {
    for (const operation of PUBLIC_OPERATION_LIST.filter((candidate) => candidate.method === "GET")) {
      const match = routes.match("HEAD", fillPath(operation.path, { id: ID }));
      expect(match.kind === "found" ? match.route.operationId : match.kind).toBe(operation.operationId);
    }
  });
});

describe("the public operation table and the OpenAPI document", () => {
  const paths = buildOpenApiDocument().paths as Record<string, Record<string, { responses: object; tags: string[] }>>;
  const documented = Object.entries(paths).filter(([path]) => !Object.hasOwn(OPERATIONAL_PATHS, path));
  const served = (item: Record<string, { tags: string[] }>) => Object.entries(item).filter(([, operation]) => !operation.tags.includes("Unsupported methods"));

  test("when the document is generated, then it holds exactly the table's operations", () => {
    const keys = documented.flatMap(([path, item]) => served(item).map(([method]) => operationKey(method, path))).sort();
    expect(keys).toEqual(PUBLIC_OPERATION_LIST.map((operation) => operationKey(operation.method, openApiPath(operation.path))).sort());
  });

  test("when the document is generated, then every other method OpenAPI can describe answers only 405 (OPTIONS also the preflight's 204)", () => {
    for (const [path, item] of documented) {
      for (const method of ["get", "put", "post", "delete", "options", "patch", "trace"]) {
        const operation = item[method]!;
        if (!operation.tags.includes("Unsupported methods")) continue;
        expect(`${method} ${path}: ${Object.keys(operation.responses).sort()}`).toBe(`${method} ${path}: ${method === "options" ? "204,405" : "405"}`);
      }
      expect(Object.keys(item).sort()).toEqual(["delete", "get", "options", "patch", "post", "put", "trace"]);
    }
  });

  test("when the document is generated, then each operation answers its success and exactly the statuses derived from its entry", () => {
    for (const operation of PUBLIC_OPERATION_LIST) {
      const responses = paths[openApiPath(operation.path)]![operation.method.toLowerCase()]!.responses;
      const notModified = readsConditionally(operation) ? [304] : [];
      const expected = [operation.success.status, ...notModified, ...operationErrors(operation).keys()].map(String).sort();
      expect(`${operation.operationId}: ${Object.keys(responses).sort()}`).toBe(`${operation.operationId}: ${expected}`);
    }
  });

  test("when statuses are derived, then each follows from what the operation takes and which service answers it", () => {
    const statuses = (id: keyof typeof PUBLIC_OPERATIONS) => [...operationErrors(PUBLIC_OPERATIONS[id]).keys()];
    const gateway = [401, 403, 413, 429, 431, 500, 502, 503];
    const sorted = (list: number[]) => [...list].sort((a, b) => a - b);
    // The calendar answers a bad query with 400, pages with 422; only an id in the path makes a 404.
    expect(statuses("listCalendarEvents")).toEqual(sorted([400, ...gateway]));
    expect(statuses("listPages")).toEqual(sorted([...gateway, 422]));
    expect(statuses("getPage")).toEqual(sorted([404, ...gateway]));
    // A write by id takes If-Match: 412.
    expect(statuses("deletePage")).toEqual(sorted([404, 412, ...gateway]));
    expect(statuses("updateCalendar")).toEqual(sorted([400, 404, 412, ...gateway]));
    // A body brings 400 (not JSON); a POST the idempotency answers 409 and 422; a rule brings its status.
    expect(statuses("createPage")).toEqual(sorted([400, 404, 409, ...gateway, 422]));
    expect(statuses("createCalendarEvent")).toEqual(sorted([400, 404, 409, ...gateway, 422]));
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
  // @ts-expect-error the calendar's ten operations all need a handler
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

import { ApiError } from "../errors/api-error";
import type { PublicOperation } from "./public-operation";
import { PUBLIC_OPERATION_LIST } from "./public-operations";

/** What a route table needs of a route: its method and its path (`:name` for a parameter segment). */
export interface RouteShape {
  method: string;
  path: string;
}

export type RouteMatch<Route extends RouteShape = PublicOperation> =
  | { kind: "found"; route: Route }
  | { kind: "method_not_allowed"; allow: string[] }
  | { kind: "not_found" };

interface CompiledPath<Route extends RouteShape> {
  pattern: RegExp;
  routes: Route[];
}

/** `/v1/new-page/:id` → a pattern that takes one segment per parameter and an optional trailing slash. */
export function pathPattern(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}/?$`);
}

/** The methods a path accepts: its operations', and HEAD wherever GET is. */
export function allowedMethods(operations: readonly Pick<RouteShape, "method">[]): string[] {
  return operations.flatMap((operation) => (operation.method === "GET" ? ["GET", "HEAD"] : [operation.method]));
}

/** The answer to a known path asked with a method it does not accept: 405 with Allow. */
export function methodNotAllowed(method: string, allow: string[]): ApiError {
  return new ApiError("method_not_allowed", `${method} is not allowed here. Allowed: ${allow.join(", ")}.`, {
    headers: { allow: allow.join(", ") },
  });
}

/** Matches a request against a table of routes (the public operations by default): an unknown path is 404, a known path with another method 405 with Allow. */
export function createRouteTable<Route extends RouteShape = PublicOperation>(operations: readonly Route[] = PUBLIC_OPERATION_LIST as unknown as Route[]): RouteTable<Route> {
  const paths: CompiledPath<Route>[] = [];
  for (const operation of operations) {
    const existing = paths.find((entry) => entry.pattern.source === pathPattern(operation.path).source);
    if (existing) existing.routes.push(operation);
    else paths.push({ pattern: pathPattern(operation.path), routes: [operation] });
  }
  return {
    match(method: string, pathname: string): RouteMatch<Route> {
      const entry = paths.find(({ pattern }) => pattern.test(pathname));
      if (!entry) return { kind: "not_found" };
      // HEAD is served wherever GET is, as that GET.
      const route = entry.routes.find((candidate) => candidate.method === (method === "HEAD" ? "GET" : method));
      if (route) return { kind: "found", route };
      return { kind: "method_not_allowed", allow: allowedMethods(entry.routes) };
    },
  };
}
export interface RouteTable<Route extends RouteShape = PublicOperation> {
  match(method: string, pathname: string): RouteMatch<Route>;
}

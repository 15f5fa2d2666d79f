import type { PublicOperation } from "./public-operation";
import { PUBLIC_OPERATION_LIST } from "./public-operations";

export type RouteMatch =
  | { kind: "found"; route: PublicOperation }
  | { kind: "method_not_allowed"; allow: string[] }
  | { kind: "not_found" };

interface CompiledPath {
  pattern: RegExp;
  routes: PublicOperation[];
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
export function allowedMethods(operations: readonly Pick<PublicOperation, "method">[]): string[] {
  return operations.flatMap((operation) => (operation.method === "GET" ? ["GET", "HEAD"] : [operation.method]));
}

/** Matches a request against the public operation table: an unknown path is 404, a known path with another method 405 with Allow. */
export function createRouteTable(operations: readonly PublicOperation[] = PUBLIC_OPERATION_LIST) {
  const paths: CompiledPath[] = [];
  for (const operation of operations) {
    const existing = paths.find((entry) => entry.pattern.source === pathPattern(operation.path).source);
    if (existing) existing.routes.push(operation);
    else paths.push({ pattern: pathPattern(operation.path), routes: [operation] });
  }
  return {
    match(method: string, pathname: string): RouteMatch {
      const entry = paths.find(({ pattern }) => pattern.test(pathname));
      if (!entry) return { kind: "not_found" };
      // HEAD is served wherever GET is, as that GET.
      const route = entry.routes.find((candidate) => candidate.method === (method === "HEAD" ? "GET" : method));
      if (route) return { kind: "found", route };
      return { kind: "method_not_allowed", allow: allowedMethods(entry.routes) };
    },
  };
}
export type RouteTable = ReturnType<typeof createRouteTable>;

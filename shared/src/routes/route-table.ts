import { PUBLIC_ROUTES, type PublicRoute } from "./public-routes";

export type RouteMatch =
  | { kind: "found"; route: PublicRoute }
  | { kind: "method_not_allowed"; allow: string[] }
  | { kind: "not_found" };

interface CompiledPath {
  pattern: RegExp;
  routes: PublicRoute[];
}

/** `/v1/new-page/:id` → a pattern that takes one segment per parameter and an optional trailing slash. */
function compile(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}/?$`);
}

/**
 * Matches a request against the public route table: an unknown path is 404, a
 * known path with another method 405 with Allow. The gateway routes with it; the
 * services use it to find the scope of the operation they are asked for.
 */
export function createRouteTable(routes: readonly PublicRoute[] = PUBLIC_ROUTES) {
  const paths: CompiledPath[] = [];
  for (const route of routes) {
    const existing = paths.find((entry) => entry.pattern.source === compile(route.path).source);
    if (existing) existing.routes.push(route);
    else paths.push({ pattern: compile(route.path), routes: [route] });
  }
  return {
    match(method: string, pathname: string): RouteMatch {
      const entry = paths.find(({ pattern }) => pattern.test(pathname));
      if (!entry) return { kind: "not_found" };
      const route = entry.routes.find((candidate) => candidate.method === method);
      if (route) return { kind: "found", route };
      return { kind: "method_not_allowed", allow: entry.routes.map((candidate) => candidate.method) };
    },
  };
}
export type RouteTable = ReturnType<typeof createRouteTable>;

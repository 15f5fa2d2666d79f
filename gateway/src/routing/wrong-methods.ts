import { createRouteTable, methodNotAllowed, requestIdOf, requestPath, type IncomingRequest, type RouteShape } from "@ws/shared";

/**
 * A port's paths besides the API operations (probes, metrics, documentation,
 * the management routes): one of them asked with a method it does not accept
 * is answered 405 with Allow before anything else looks at the request, so no
 * key or token is needed to be told so. Undefined for every other request.
 */
export function wrongMethodAnswers(routes: readonly RouteShape[]): (request: IncomingRequest) => Promise<Response> | undefined {
  const table = createRouteTable(routes);
  return (request) => {
    const match = table.match(request.method, requestPath(request));
    if (match.kind !== "method_not_allowed") return undefined;
    return Promise.resolve(methodNotAllowed(request.method, match.allow).toResponse(requestIdOf(request)));
  };
}

/** GET routes of these paths. */
export const gets = (paths: readonly string[]): RouteShape[] => paths.map((path) => ({ method: "GET", path }));

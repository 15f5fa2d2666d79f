import { ApiError, methodNotAllowed, type IncomingRequest, type PublicOperation } from "@ws/shared";
import type { RouteTable } from "../../routing/route-table";
import { assertHeadersWithinLimits } from "../header-limits";

/** Headers within limits (431), then a known path (404) and method (405 with Allow): all before any key is looked at. */
export function admit(routes: RouteTable, request: IncomingRequest): { route: PublicOperation; url: URL } {
  assertHeadersWithinLimits(request.headers);
  const url = URL.parse(request.url);
  if (!url) throw ApiError.badRequest("The request target is not a valid path.");
  const match = routes.match(request.method, url.pathname);
  if (match.kind === "not_found") throw ApiError.notFound("No such path.");
  if (match.kind === "method_not_allowed") throw methodNotAllowed(request.method, match.allow);
  return { route: match.route, url };
}

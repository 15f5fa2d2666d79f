import { Elysia } from "elysia";
import { ApiError } from "../errors/api-error";
import { PRINCIPAL_HEADER, verifyPrincipal, type VerificationKeys } from "../principal/internal-token";
import type { Principal } from "../principal/principal";
import { createRouteTable } from "../operations/route-table";
import { requestIdOf } from "./request-id";

/** Paths for the gateway alone (a workspace's purge): each checks its own signed order instead of a principal. */
export const INTERNAL_SERVICE_PREFIX = "/internal/";

/** Paths a service answers without a principal: probes and metrics only. */
export const UNAUTHENTICATED_SERVICE_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

const principals = new WeakMap<Request, Principal>();
const routes = createRouteTable();

/**
 * The gateway checks the scope first; a service checks it again from the same
 * route table, so a gateway defect cannot hand a service an operation the key
 * may not do.
 */
function assertScopeOf(request: Request, path: string, principal: Principal): void {
  const match = routes.match(request.method, path);
  if (match.kind === "found" && !principal.scopes.includes(match.route.scope)) {
    throw new ApiError("insufficient_permissions", `This API key lacks the ${match.route.scope} scope.`, { details: { required_scope: match.route.scope } });
  }
}

/**
 * Services accept only requests that carry a principal the gateway signed for
 * exactly this method and path, recently, with the operation's scope. Checked
 * first, before any body is parsed, so a call around the gateway learns nothing
 * but 401.
 */
export function requirePrincipal(keys: VerificationKeys) {
  return new Elysia({ name: "require-principal" })
    .onRequest(async ({ request }) => {
      const path = new URL(request.url).pathname;
      if (UNAUTHENTICATED_SERVICE_PATHS.has(path) || path.startsWith(INTERNAL_SERVICE_PREFIX)) return;
      const principal = await verifyPrincipal(request.headers.get(PRINCIPAL_HEADER), { method: request.method, path }, keys);
      assertScopeOf(request, path, principal);
      requestIdOf(request);
      principals.set(request, principal);
    })
    .derive({ as: "global" }, ({ request }) => ({ principal: principals.get(request)! }));
}

import { Elysia } from "elysia";
import { ApiError } from "../errors/api-error";
import { PRINCIPAL_HEADER, verifiedPrincipal, type VerificationKeys } from "../principal/internal-token";
import type { Principal } from "../principal/principal";
import { createRouteTable } from "../operations/route-table";
import { requestIdOf } from "./request-id";
import { requestPath } from "./request-path";

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

/** The principal requirePrincipal verified for this request (for the operations it lets through). */
export function principalOf(request: Request): Principal {
  const principal = principals.get(request);
  if (!principal) throw new Error("No principal was verified for this request: the app must use requirePrincipal.");
  return principal;
}

/** Every path but the probes, the metrics and the gateway's internal orders. */
export const needsPrincipal = (path: string) => !UNAUTHENTICATED_SERVICE_PATHS.has(path) && !path.startsWith(INTERNAL_SERVICE_PREFIX);

/**
 * The workspace of the request's principal when it carries a valid one, read
 * before the request waits for its turn (each workspace gets its share); the
 * principal is kept, so requirePrincipal does not verify it again. Anything
 * else is undefined here and refused by requirePrincipal, with its error.
 */
export function workspaceOfValidPrincipal(request: Request, path: string, keys: VerificationKeys): string | undefined {
  if (!needsPrincipal(path)) return undefined;
  try {
    const principal = verifiedPrincipal(request.headers.get(PRINCIPAL_HEADER), { method: request.method, path }, keys);
    principals.set(request, principal);
    return principal.workspace_id;
  } catch {
    return undefined;
  }
}

/**
 * Services accept only requests that carry a principal the gateway signed for
 * exactly this method and path, recently, with the operation's scope. Checked
 * first, before any body is parsed, so a call around the gateway learns nothing
 * but 401. The principal is kept for principalOf rather than derived into
 * every handler's context, which cost a hook and a copy of the context per
 * request.
 */
export function requirePrincipal(keys: VerificationKeys) {
  return new Elysia({ name: "require-principal" }).onRequest(({ request }) => {
    const path = requestPath(request);
    if (!needsPrincipal(path)) return;
    let principal = principals.get(request);
    if (!principal) {
      principal = verifiedPrincipal(request.headers.get(PRINCIPAL_HEADER), { method: request.method, path }, keys);
      principals.set(request, principal);
    }
    assertScopeOf(request, path, principal);
    requestIdOf(request);
  });
}

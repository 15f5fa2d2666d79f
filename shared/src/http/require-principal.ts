import { Elysia } from "elysia";
import { PRINCIPAL_HEADER, verifyPrincipal, type SigningKey } from "../principal/internal-token";
import type { Principal } from "../principal/principal";
import { requestIdOf } from "./request-id";

/** Paths for the gateway alone (a workspace's purge): each checks its own signed order instead of a principal. */
export const INTERNAL_SERVICE_PREFIX = "/internal/";

/** Paths a service answers without a principal: probes and metrics only. */
export const UNAUTHENTICATED_SERVICE_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

const principals = new WeakMap<Request, Principal>();

/**
 * Services accept only requests that carry a principal the gateway signed for
 * exactly this method and path. Checked first, before any body is parsed, so a
 * call around the gateway learns nothing but 401.
 */
export function requirePrincipal(key: SigningKey) {
  return new Elysia({ name: "require-principal" })
    .onRequest(async ({ request }) => {
      const path = new URL(request.url).pathname;
      if (UNAUTHENTICATED_SERVICE_PATHS.has(path) || path.startsWith(INTERNAL_SERVICE_PREFIX)) return;
      const principal = await verifyPrincipal(request.headers.get(PRINCIPAL_HEADER), { method: request.method, path }, key);
      requestIdOf(request);
      principals.set(request, principal);
    })
    .derive({ as: "global" }, ({ request }) => ({ principal: principals.get(request)! }));
}

import { Elysia } from "elysia";
import { requirePrincipal, type ServiceDeps } from "@ws/shared";

// Placeholder until the pages feature lands: echoes the principal so the gateway can be tested.
export function pageRoutes(deps: ServiceDeps) {
  return new Elysia().use(requirePrincipal(deps.signingKey)).get("/v1/new-page", ({ principal }) => ({ data: [], total: 0, page: 1, per_page: 20, principal }));
}

import { Elysia } from "elysia";
import { errorHandler, healthRoutes, jsonBodies, type Logger, type MetricsRegistry, type ReadinessCheck } from "@ws/shared";
import { adminRoutes } from "./admin";
import type { AdminDeps } from "./admin/admin-context";
import { withCors, type CorsOrigins } from "./cors";
import { createPublicRequestHandler, type PublicRequestDeps } from "./public/handle-public-request";
import { answeringHead } from "./public/head-requests";

export interface GatewayDeps {
  publicRequests: PublicRequestDeps;
  admin: AdminDeps;
  adminToken: string | undefined;
  readiness: Record<string, ReadinessCheck>;
  isDraining: () => boolean;
  logger: Logger;
  /** Routes the public app serves before authentication (the OpenAPI document and docs page). */
  documentation?: Elysia;
  /** Served at `GET /metrics` on the internal app only. */
  metrics?: MetricsRegistry;
  /** Browser origins allowed to call the public API (none unless configured). */
  cors?: CorsOrigins;
}

const clientAddresses = new WeakMap<Request, string>();

/**
 * The gateway: a public app (every API path goes through authentication, limits
 * and the proxy) and an internal app (management API, metrics, probes).
 */
export function createApp(deps: GatewayDeps) {
  const handlePublicRequest = createPublicRequestHandler(deps.publicRequests);
  const health = healthRoutes({ checks: deps.readiness, isDraining: deps.isDraining });

  const publicApp = new Elysia()
    .use(errorHandler({ validationCode: "validation_error", logger: deps.logger }))
    .use(health)
    .use(deps.documentation ?? new Elysia())
    .all("/*", ({ request }) => handlePublicRequest(request, clientAddresses.get(request)));

  const adminApp = new Elysia()
    .use(errorHandler({ validationCode: "validation_error", logger: deps.logger }))
    .use(jsonBodies())
    .use(health)
    .get("/metrics", () => (deps.metrics ? deps.metrics.response() : new Response("", { status: 404 })))
    .use(deps.adminToken ? adminRoutes(deps.admin, deps.adminToken) : new Elysia());

  // Outermost first: CORS answers preflights before anything else; HEAD is served as GET.
  const servePublic = withCors(
    deps.cors ?? { kind: "none" },
    answeringHead((request: Request, clientAddress?: string) => {
      if (clientAddress) clientAddresses.set(request, clientAddress);
      return publicApp.handle(request);
    }),
  );

  return {
    publicApp,
    adminApp,
    /** Fetch handlers that remember the client address the runtime reported. */
    publicFetch: (request: Request, clientAddress?: string) => servePublic(request, clientAddress),
    adminFetch: (request: Request) => adminApp.handle(request),
  };
}
export type GatewayApp = ReturnType<typeof createApp>;

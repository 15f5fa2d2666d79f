import { Elysia } from "elysia";
import { answerWithinDeadline, createBodyBudget, DEFAULT_MAX_BODY_BYTES, errorHandler, HEALTH_PATHS, healthRoutes, jsonBodies, PUBLIC_OPERATION_LIST, registerDateTimeFormat, requestPath, routableByElysia, setDeadlineIn, toFetchRequest, type Answer, type IncomingRequest, type Logger, type MetricsRegistry, type ReadinessCheck } from "@ws/shared";
import { adminRoutes } from "./admin";
import type { AdminAuthFailure } from "./admin/admin-auth";
import type { AdminDeps } from "./admin/admin-context";
import { resolveClientAddress } from "./client-address/client-address";
import type { TrustedProxies } from "./client-address/trusted-proxies";
import type { AuthFailureLimiter } from "./ratelimit/auth-failure-limiter";
import { adminDocumentation } from "./admin/openapi";
import { ADMIN_OPERATIONS, ADMIN_PREFIX } from "./admin/operations";
import { gets, wrongMethodAnswers } from "./routing/wrong-methods";
import { withCors, type CorsOrigins } from "./cors";
import { createPublicRequestHandler, type PublicRequestDeps } from "./public/handle-public-request";
import { answeringHead } from "./public/head-requests";
import type { DocumentationAnswers } from "./openapi";

export interface GatewayDeps {
  publicRequests: PublicRequestDeps;
  admin: AdminDeps;
  adminToken: string | undefined;
  /** A management request is answered 503 after this, unless its change began to commit: a stalled database holds none longer. */
  adminTimeoutMs: number;
  /** Failed admin-token authentications, per client address. */
  adminAuthFailures: AuthFailureLimiter;
  onAdminAuthFailure?: (outcome: AdminAuthFailure) => void;
  /** Peers whose X-Forwarded-For / Forwarded name the client (TRUSTED_PROXIES). */
  trustedProxies: TrustedProxies;
  readiness: Record<string, ReadinessCheck>;
  isDraining: () => boolean;
  logger: Logger;
  /** Answers the public port gives before authentication (the OpenAPI document and docs page). */
  documentation?: DocumentationAnswers;
  /** Served at `GET /metrics` on the internal app only. */
  metrics?: MetricsRegistry;
  /** Told every /readyz answer, for the readiness metrics. */
  onReadiness?: (ready: boolean) => void;
  /** Browser origins allowed to call the public API (none unless configured). */
  cors?: CorsOrigins;
}

/** Management request bodies in transit at once (each at most DEFAULT_MAX_BODY_BYTES): past it, 503 with Retry-After. */
const MANAGEMENT_BODIES_BYTES = 16 * 1024 * 1024;

/** The first path segments of the public operations; everything else on the public port is the documentation, Elysia's (probes) or a 404. */
const API_PREFIXES = [...new Set(PUBLIC_OPERATION_LIST.map((operation) => operation.path.slice(0, operation.path.indexOf("/", 1) + 1)))];

/** Whether a request URL (absolute, as runtimes build it) is under an API prefix, read without parsing the whole URL. */
export function isApiPath(url: string): boolean {
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  return pathStart !== -1 && API_PREFIXES.some((prefix) => url.startsWith(prefix, pathStart));
}

/** The client address of each request, as the runtime and the trusted proxies reported it. */
const clientAddresses = new WeakMap<Request, string>();
const clientAddressOf = (request: Request) => clientAddresses.get(request) ?? "unknown";

/**
 * The gateway: a public app (every API path goes through authentication, limits
 * and the proxy) and an internal app (management API, metrics, probes).
 */
export function createApp(deps: GatewayDeps) {
  // The management API's date-times are RFC 3339 exactly, as the services' are (no 2030-02-30 rolled into March).
  registerDateTimeFormat();
  const handlePublicRequest = createPublicRequestHandler(deps.publicRequests);
  const health = healthRoutes({ checks: deps.readiness, isDraining: deps.isDraining, onReadiness: deps.onReadiness });

  const publicApp = new Elysia()
    .use(errorHandler({ validationCode: "validation_error", logger: deps.logger }))
    .use(health)
    .all("/*", ({ request }) => handlePublicRequest(request, clientAddressOf(request)));

  // The management API's bodies are read here, not by a front: within the default limit, and all of them at once within a budget.
  const managementBodies = createBodyBudget({ totalBytes: MANAGEMENT_BODIES_BYTES });
  const adminAuth = (adminToken: string) => ({ adminToken, failures: deps.adminAuthFailures, clientAddressOf, onFailure: deps.onAdminAuthFailure });
  // Bodies are checked as sent, as the services check theirs: Elysia's default normalizer turned "5" into 5.
  const adminApp = new Elysia({ normalize: "typebox" })
    .use(errorHandler({ validationCode: "validation_error", logger: deps.logger }))
    .use(jsonBodies(() => ({ limitBytes: DEFAULT_MAX_BODY_BYTES, lease: managementBodies.lease() }), { absentIsEmpty: true }))
    .use(health)
    .get("/metrics", () => (deps.metrics ? deps.metrics.response() : new Response("", { status: 404 })))
    .use(deps.adminToken ? adminRoutes(deps.admin, adminAuth(deps.adminToken)) : new Elysia());
  // Answered before the management routes, whose admin-token check would apply to them.
  const adminDocs = deps.adminToken ? adminDocumentation(() => adminRoutes(deps.admin, adminAuth(deps.adminToken!))) : undefined;

  const publicWrongMethods = wrongMethodAnswers(gets([...HEALTH_PATHS, ...(deps.documentation?.paths ?? [])]));
  const adminWrongMethods = wrongMethodAnswers([
    ...gets([...HEALTH_PATHS, "/metrics", ...(adminDocs?.paths ?? [])]),
    ...(deps.adminToken ? Object.values(ADMIN_OPERATIONS).map(({ method, path }) => ({ method, path: ADMIN_PREFIX + path })) : []),
  ]);

  /** The request as Elysia routes it, with the client address remembered for its handlers. */
  const routed = (request: IncomingRequest, peer: string | undefined) => {
    const routable = routableByElysia(toFetchRequest(request));
    clientAddresses.set(routable, resolveClientAddress(peer, routable.headers, deps.trustedProxies));
    return routable;
  };
  const handledBy = (app: { handle(request: Request): Promise<Response> }, request: IncomingRequest, peer: string | undefined) => app.handle(routed(request, peer));
  /** A management request, within ADMIN_TIMEOUT_MS (the budget the caller may have sent is not its to choose). */
  const managed = (request: IncomingRequest, peer: string | undefined) => {
    const routable = routed(request, peer);
    // Read without URL parsing: a target such as CONNECT's ":80" is no URL, and no management path either.
    if (!requestPath(routable).startsWith(ADMIN_PREFIX)) return adminApp.handle(routable);
    setDeadlineIn(routable, deps.adminTimeoutMs);
    return answerWithinDeadline(routable, () => adminApp.handle(routable));
  };

  // Outermost first: CORS answers preflights before anything else; HEAD is served as GET.
  const servePublic = withCors(
    deps.cors ?? { kind: "none" },
    answeringHead((request: IncomingRequest, peer?: string) => {
      // An API path is the public pipeline's alone, which answers every error itself: Elysia's
      // routing and hooks in between would only cost time (about 10 µs a request), and it reads
      // the request as the server parsed it, with no fetch Request built for it.
      if (isApiPath(request.url)) {
        return handlePublicRequest(request, resolveClientAddress(peer, request.headers, deps.trustedProxies));
      }
      return deps.documentation?.(request) ?? publicWrongMethods(request) ?? handledBy(publicApp, request, peer);
    }),
  );

  return {
    publicApp,
    adminApp,
    /** The public port: the API, the documentation, a known path's wrong method, else Elysia (probes, 404), the client address taken from the peer the runtime reported. */
    publicIncoming: (request: IncomingRequest, peer?: string) => servePublic(request, peer),
    /** The internal port: the management documentation, a known path's wrong method, else the management app. */
    adminIncoming: (request: IncomingRequest, peer?: string): Promise<Answer> => adminDocs?.(request) ?? adminWrongMethods(request) ?? managed(request, peer),
  };
}
export type GatewayApp = ReturnType<typeof createApp>;

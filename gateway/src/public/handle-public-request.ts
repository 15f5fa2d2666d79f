import { requestIdOf, type Answer, type BodyBudget, type IncomingRequest, type Logger, type SendUpstream, type ServiceName, type SigningKey } from "@ws/shared";
import type { Authenticator } from "../auth/authenticator";
import type { UpstreamErrorKind } from "../proxy/forward";
import type { GivenUpAnswers } from "../proxy/given-up-answers";
import type { RateLimiter } from "../ratelimit/limiter";
import type { AuthFailureLimiter } from "../ratelimit/auth-failure-limiter";
import type { Idempotency } from "../idempotency";
import type { RouteTable } from "../routing/route-table";
import { admit } from "./steps/admit";
import { answerError } from "./steps/answer-error";
import { authenticate } from "./steps/authenticate";
import { authorize } from "./steps/authorize";
import { forwardToService } from "./steps/forward";
import { limit } from "./steps/limit";
import { report, startTrace, type RequestTrace } from "./steps/trace";

export interface PublicRequestDeps {
  routes: RouteTable;
  authenticator: Authenticator;
  limiter: RateLimiter;
  authFailures: AuthFailureLimiter;
  signingKey: SigningKey;
  upstreams: Record<ServiceName, string>;
  /** How the runtime sends a request to a service. */
  sendUpstream: SendUpstream;
  upstreamTimeoutMs: number;
  /** Request bodies in transit, in all and per key. */
  bodyBudget: BodyBudget;
  defaultRateLimit: number;
  logger: Logger;
  /** Called once per request; `outcome` is the rate-limit decision when one was taken. */
  observe?: (event: { route: string; method: string; status: number; seconds: number; outcome?: string }) => void;
  onUpstreamError?: (service: ServiceName, kind: UpstreamErrorKind) => void;
  /** Idempotency-Key on POSTs: replays a key's first answer instead of forwarding again. */
  idempotency?: Idempotency;
  /** Answers whose clients gave them up before their end, by workspace: the services hear of them in the principal. */
  givenUpAnswers: GivenUpAnswers;
}

/**
 * The whole life of a public API request at the gateway, as named steps in
 * the order the answers must come: admit (431, 404/405), authenticate (401),
 * limit (429; rate-limit headers from here on), authorize (403), then forward
 * with the signed principal and the body within its limits (413, 503). A
 * thrown error becomes the answer in one place, and every request is logged
 * and measured in one place.
 */
export function createPublicRequestHandler(deps: PublicRequestDeps) {
  async function run(request: IncomingRequest, clientAddress: string, trace: RequestTrace): Promise<Answer> {
    const { route, url } = admit(deps.routes, request);
    trace.route = route.operationId;
    const { key, authenticated } = await authenticate(deps, request, clientAddress);
    const credential = await limit(deps, trace, key, authenticated);
    authorize(credential, route);
    const response = await forwardToService(deps, request, { route, url, credential, requestId: trace.requestId });
    for (const [name, value] of Object.entries(trace.headers)) response.headers.set(name, value);
    response.headers.set("x-request-id", trace.requestId);
    return response;
  }

  return async function handlePublicRequest(request: IncomingRequest, clientAddress = "unknown"): Promise<Answer> {
    const started = performance.now();
    const trace = startTrace(requestIdOf(request));
    let response: Answer;
    try {
      response = await run(request, clientAddress, trace);
    } catch (error) {
      response = answerError(error, trace, deps.logger);
    }
    report(deps, request, trace, response, started);
    return response;
  };
}

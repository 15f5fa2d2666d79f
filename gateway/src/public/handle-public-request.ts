import { ApiError, databaseFailure, notExecuted, requestIdOf, signPrincipal, readStreamedBody, streamBodyWithin, type BodyBudget, type BodyLease, type Logger, type ServiceName, type SigningKey } from "@ws/shared";
import type { Authenticator } from "../auth/authenticator";
import { extractKey } from "../auth/extract-credential";
import { assertScope, effectiveScopes } from "../auth/permissions";
import { forward, type UpstreamErrorKind } from "../proxy/forward";
import { assertAllowed, rateLimitHeaders } from "../ratelimit/headers";
import type { RateLimiter } from "../ratelimit/limiter";
import type { AuthFailureLimiter } from "../ratelimit/auth-failure-limiter";
import type { Idempotency } from "../idempotency";
import type { RouteTable } from "../routing/route-table";
import { assertHeadersWithinLimits } from "./header-limits";

export interface PublicRequestDeps {
  routes: RouteTable;
  authenticator: Authenticator;
  limiter: RateLimiter;
  authFailures: AuthFailureLimiter;
  signingKey: SigningKey;
  upstreams: Record<ServiceName, string>;
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
}

/**
 * The whole life of a public API request at the gateway, in the order the
 * contract needs: headers (431), route (404/405), key (401), rate limit (429,
 * headers from here on), scope (403), then the signed principal and the service,
 * with the body streamed to it within its size limit (413) and the budget of
 * bodies in transit (503, or 429 for one key's share).
 */
export function createPublicRequestHandler(deps: PublicRequestDeps) {
  return async function handlePublicRequest(request: Request, clientAddress = "unknown"): Promise<Response> {
    const started = performance.now();
    const requestId = requestIdOf(request);
    const url = URL.parse(request.url);
    let headers: Record<string, string> = {};
    let keyId: string | undefined;
    let routeName = "unmatched";
    let outcome: string | undefined;
    let response: Response;
    let lease: BodyLease | undefined;
    let cause: string | undefined;
    try {
      assertHeadersWithinLimits(request.headers);
      if (!url) throw ApiError.badRequest("The request target is not a valid path.");
      const match = deps.routes.match(request.method, url.pathname);
      if (match.kind === "not_found") throw ApiError.notFound("No such path.");
      if (match.kind === "method_not_allowed") {
        throw new ApiError("method_not_allowed", `${request.method} is not allowed here. Allowed: ${match.allow.join(", ")}.`, {
          headers: { allow: match.allow.join(", ") },
        });
      }
      const { route } = match;
      routeName = route.operationId;

      const key = extractKey(request.headers);
      let authenticated;
      try {
        // An address past its failure limit learns nothing more about unknown keys.
        authenticated = await deps.authenticator.authenticate(key, () => deps.authFailures.assertNotBlocked(clientAddress));
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) await deps.authFailures.recordFailure(clientAddress);
        throw error;
      }
      const decision = await deps.limiter.hit({
        id: authenticated.credential.keyId,
        workspaceId: authenticated.credential.workspaceId,
        limit: authenticated.credential.rateLimitPerMinute ?? deps.defaultRateLimit,
      });
      outcome = decision.outcome;
      const credential = await deps.authenticator.confirm(key, authenticated, decision.authEpoch);
      headers = rateLimitHeaders(decision);
      keyId = credential.keyId;
      assertAllowed(decision);
      assertScope(credential.keyScopes, credential.role, route.scope);
      lease = deps.bodyBudget.lease(credential.keyId);
      const body = route.body ? streamBodyWithin(request, { limitBytes: route.maxBodyBytes, lease }) : null;
      // A POST with an Idempotency-Key is known by its body, so that body is read whole first (within the same limit and budget).
      const wholeBody = body && deps.idempotency && request.method === "POST" && request.headers.has("idempotency-key") ? await readStreamedBody(body) : undefined;

      const principalToken = signPrincipal(
        {
          workspace_id: credential.workspaceId,
          member_id: credential.memberId,
          key_id: credential.keyId,
          scopes: effectiveScopes(credential.keyScopes, credential.role),
          target_team_ids: credential.targetTeamIds,
          visible_team_ids: credential.visibleTeamIds,
          request_id: requestId,
        },
        { method: request.method, path: url.pathname },
        deps.signingKey,
      );
      const send = () => forward({
        upstream: deps.upstreams[route.service],
        method: request.method,
        pathAndQuery: url.pathname + url.search,
        headers: request.headers,
        body: wholeBody ?? body?.stream ?? null,
        bodyFailure: body?.failure,
        principalToken,
        requestId,
        timeoutMs: deps.upstreamTimeoutMs,
        onError: deps.onUpstreamError && ((kind) => deps.onUpstreamError!(route.service, kind)),
      });
      response = deps.idempotency ? await deps.idempotency.run({ request, operation: route, apiKeyId: credential.keyId, body: wholeBody ?? null }, send) : await send();
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
      response.headers.set("x-request-id", requestId);
    } catch (error) {
      // The gateway's own database calls (key look-ups) come before forwarding: when they fail, nothing ran.
      const answer = error instanceof ApiError ? error : databaseFailure(error) ? notExecuted("The database is unavailable.", error) : undefined;
      if (answer) {
        response = answer.toResponse(requestId, headers);
        if (answer.status >= 500) cause = answer.causeMessage();
      } else {
        deps.logger.error("request failed", { request_id: requestId, error: error instanceof Error ? error.stack : String(error) });
        response = new ApiError("internal_error", "Something went wrong on our side.").toResponse(requestId, headers);
      }
    }
    lease?.release();
    const seconds = (performance.now() - started) / 1000;
    deps.observe?.({ route: routeName, method: request.method, status: response.status, seconds, outcome });
    deps.logger.info("request", {
      request_id: requestId,
      key_id: keyId,
      method: request.method,
      route: routeName,
      status: response.status,
      latency_ms: Math.round(seconds * 10_000) / 10,
      ...(cause && { cause }),
    });
    return response;
  };
}

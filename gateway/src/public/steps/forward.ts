import { readStreamedBody, signPrincipal, streamBodyWithin, type Answer, type IncomingRequest, type PublicOperation } from "@ws/shared";
import type { Credential } from "../../auth/authenticator";
import { effectiveScopes } from "../../auth/permissions";
import { forward } from "../../proxy/forward";
import type { PublicRequestDeps } from "../handle-public-request";

type ForwardDeps = Pick<PublicRequestDeps, "bodyBudget" | "idempotency" | "signingKey" | "upstreams" | "sendUpstream" | "upstreamTimeoutMs" | "onUpstreamError">;

/**
 * Sends the request to its service with the signed principal, the body
 * streamed within the operation's limit (413) and the budget of bodies in
 * transit (503, or 429 for one key's share); a POST with an Idempotency-Key
 * goes through the idempotency store, which may answer with the key's first answer.
 */
export async function forwardToService(
  deps: ForwardDeps,
  request: IncomingRequest,
  target: { route: PublicOperation; url: URL; credential: Credential; requestId: string },
): Promise<Answer> {
  const { route, url, credential, requestId } = target;
  const lease = deps.bodyBudget.lease(credential.keyId);
  try {
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
      send: deps.sendUpstream,
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
    return deps.idempotency ? await deps.idempotency.run({ request, operation: route, apiKeyId: credential.keyId, body: wholeBody ?? null }, send) : await send();
  } finally {
    lease.release();
  }
}

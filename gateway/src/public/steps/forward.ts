import { ApiError, declaredLength, readStreamedBody, signPrincipal, streamBodyWithin, type Answer, type BodyLease, type IncomingRequest, type PublicOperation, type StreamedBody } from "@ws/shared";
import type { Credential } from "../../auth/authenticator";
import { effectiveScopes } from "../../auth/permissions";
import { ANSWERS_IN_TRANSIT } from "../../idempotency";
import { forward } from "../../proxy/forward";
import type { PublicRequestDeps } from "../handle-public-request";

type ForwardDeps = Pick<PublicRequestDeps, "bodyBudget" | "idempotency" | "signingKey" | "upstreams" | "sendUpstream" | "upstreamTimeoutMs" | "onUpstreamError" | "givenUpAnswers">;

/**
 * A body declared this long or shorter is read whole before a connection to
 * the service is taken: a client that sends its small body slowly, or never,
 * then holds none of the connections every key shares.
 */
export const READ_FIRST_MAX_BYTES = 64 * 1024;
/**
 * A body passed on as it arrives (longer, or chunked) holds a connection to the
 * service while it streams, so it holds at least this much of its key's share
 * of the budget of bodies in transit: one key can stream only so many at once
 * (the share over this), however small they are, and the keys together only
 * the budget over this, far fewer than the connections.
 */
export const STREAMED_BODY_MIN_BYTES = 1024 * 1024;

/** The whole of a small body, or the refusal once the wait for it has lasted `timeoutMs`; nothing was sent on. */
async function readWithin(body: StreamedBody, timeoutMs: number): Promise<Uint8Array> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      body.stream.cancel().catch(() => {});
      reject(new ApiError("service_unavailable", "The request body did not arrive in time. The request was not executed; send it again.", { headers: { "retry-after": "1" } }));
    }, timeoutMs);
  });
  try {
    return await Promise.race([readStreamedBody(body), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The access a request is answered under, the same however its lists were ordered: what an idempotent replay must match. */
function accessOf(scopes: readonly string[], credential: Credential): string {
  const sorted = (values: readonly string[] | null) => (values === null ? null : [...values].sort());
  return JSON.stringify([sorted(scopes), sorted(credential.targetTeamIds), sorted(credential.visibleTeamIds)]);
}

/** What a streamed body holds of its key's share beyond its own bytes (charged as they come). */
function holdStreamRoom(lease: BodyLease, declared: number | undefined): void {
  lease.take(Math.max(0, STREAMED_BODY_MIN_BYTES - (declared ?? 0)));
}

/**
 * Sends the request to its service with the signed principal, the body within
 * the operation's limit (413) and the budget of bodies in transit (503, or 429
 * for one key's share): read whole first when it is small, streamed as it
 * arrives otherwise; a POST with an Idempotency-Key goes through the
 * idempotency store, which may answer with the key's first answer (within the
 * same budget, held until that answer has been sent).
 */
export async function forwardToService(
  deps: ForwardDeps,
  request: IncomingRequest,
  target: { route: PublicOperation; url: URL; credential: Credential; requestId: string },
): Promise<Answer> {
  const { route, url, credential, requestId } = target;
  const lease = deps.bodyBudget.lease(credential.keyId, credential.workspaceId);
  try {
    const body = route.body ? streamBodyWithin(request, { limitBytes: route.maxBodyBytes, lease }) : null;
    const declared = declaredLength(request);
    // A POST with an Idempotency-Key is known by its body, so that body is read whole first too (within the same limit and budget).
    const idempotent = deps.idempotency !== undefined && request.method === "POST" && request.headers.has("idempotency-key");
    const readFirst = body !== null && (idempotent || (declared !== undefined && declared <= READ_FIRST_MAX_BYTES));
    if (body && !readFirst) holdStreamRoom(lease, declared);
    const wholeBody = body && readFirst ? await readWithin(body, deps.upstreamTimeoutMs) : undefined;
    const scopes = effectiveScopes(credential.keyScopes, credential.role);
    const principalToken = signPrincipal(
      {
        workspace_id: credential.workspaceId,
        member_id: credential.memberId,
        key_id: credential.keyId,
        scopes,
        target_team_ids: credential.targetTeamIds,
        visible_team_ids: credential.visibleTeamIds,
        request_id: requestId,
        answer_given_up_ms_ago: deps.givenUpAnswers.msAgo(credential.workspaceId),
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
      onGivenUp: () => deps.givenUpAnswers.mark(credential.workspaceId),
    });
    if (!deps.idempotency || !idempotent) return await send();
    // The answer the idempotency layer holds in memory (a replay, or the first answer it stored) stays charged
    // until it has been written out, long after this request's body is given back: the layer owns that lease.
    const answerLease = deps.bodyBudget.lease(credential.keyId, credential.workspaceId, ANSWERS_IN_TRANSIT);
    const access = () => accessOf(scopes, credential);
    return await deps.idempotency.run({ request, operation: route, apiKeyId: credential.keyId, access, body: wholeBody ?? null, answerLease }, send);
  } finally {
    lease.release();
  }
}

import type { Authenticated, Authenticator, Credential } from "../../auth/authenticator";
import { assertAllowed, rateLimitHeaders } from "../../ratelimit/headers";
import type { RateLimiter } from "../../ratelimit/limiter";
import type { RequestTrace } from "./trace";

/**
 * Counts the request against its key (429 past the limit or while suspended),
 * and confirms the credential with the epoch read in the same round trip. From
 * here on every answer carries the rate-limit headers.
 */
export async function limit(
  deps: { limiter: RateLimiter; authenticator: Authenticator; defaultRateLimit: number },
  trace: RequestTrace,
  key: string,
  authenticated: Authenticated,
): Promise<Credential> {
  const decision = await deps.limiter.hit({
    id: authenticated.credential.keyId,
    workspaceId: authenticated.credential.workspaceId,
    limit: authenticated.credential.rateLimitPerMinute ?? deps.defaultRateLimit,
  });
  trace.outcome = decision.outcome;
  const credential = await deps.authenticator.confirm(key, authenticated, decision.authEpoch);
  trace.headers = rateLimitHeaders(decision);
  trace.keyId = credential.keyId;
  assertAllowed(decision);
  return credential;
}

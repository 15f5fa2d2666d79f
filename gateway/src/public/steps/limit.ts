import type { Authenticated, Authenticator, Credential } from "../../auth/authenticator";
import { assertAllowed, rateLimitHeaders } from "../../ratelimit/headers";
import { underLimit, type RateLimiter } from "../../ratelimit/limiter";
import type { RequestTrace } from "./trace";

/**
 * Counts the request against its key (429 past the limit or while suspended),
 * and confirms the credential with the epoch read in the same round trip: a key
 * read again there is held to its limit as read, so a changed limit applies to
 * this very request. From here on every answer carries the rate-limit headers.
 */
export async function limit(
  deps: { limiter: RateLimiter; authenticator: Authenticator; defaultRateLimit: number },
  trace: RequestTrace,
  key: string,
  authenticated: Authenticated,
): Promise<Credential> {
  const counted = await deps.limiter.hit({
    id: authenticated.credential.keyId,
    workspaceId: authenticated.credential.workspaceId,
    limit: authenticated.credential.rateLimitPerMinute ?? deps.defaultRateLimit,
  });
  // Recorded before the key is read again, which may refuse it (401): the request was counted all the same.
  trace.outcome = counted.outcome;
  const credential = await deps.authenticator.confirm(key, authenticated, counted.authEpoch);
  const decision = underLimit(counted, credential.rateLimitPerMinute ?? deps.defaultRateLimit);
  trace.outcome = decision.outcome;
  trace.headers = rateLimitHeaders(decision);
  trace.keyId = credential.keyId;
  assertAllowed(decision);
  return credential;
}

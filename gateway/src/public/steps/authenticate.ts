import { ApiError, type IncomingRequest } from "@ws/shared";
import type { Authenticated, Authenticator } from "../../auth/authenticator";
import { extractKey } from "../../auth/extract-credential";
import type { AuthFailureLimiter } from "../../ratelimit/auth-failure-limiter";

/** The key (401 when missing or unknown), each failure counted against the client's address (429 past its limit). */
export async function authenticate(
  deps: { authenticator: Authenticator; authFailures: AuthFailureLimiter },
  request: IncomingRequest,
  clientAddress: string,
): Promise<{ key: string; authenticated: Authenticated }> {
  const key = extractKey(request.headers);
  try {
    // An address past its failure limit learns nothing more about unknown keys.
    const authenticated = await deps.authenticator.authenticate(key, () => deps.authFailures.assertNotBlocked(clientAddress));
    return { key, authenticated };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) await deps.authFailures.recordFailure(clientAddress);
    throw error;
  }
}

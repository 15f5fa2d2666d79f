import { ApiError } from "@ws/shared";
import type { RateLimitDecision } from "./limiter";

/**
 * On every response to an authenticated request, whatever its status.
 * X-RateLimit-Reset is always the end of the current window, also while a key
 * is suspended: Retry-After alone says when a suspended key may send again.
 */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const headers: Record<string, string> = {
    "x-ratelimit-limit": String(decision.limit),
    "x-ratelimit-remaining": String(decision.remaining),
    "x-ratelimit-reset": String(decision.resetAt),
  };
  if (decision.outcome !== "allowed") headers["retry-after"] = String(decision.retryAfter);
  return headers;
}

export function assertAllowed(decision: RateLimitDecision): void {
  if (decision.outcome === "suspended") {
    throw new ApiError("key_suspended", `This API key is suspended for sending far past its rate limit. Retry in ${decision.retryAfter} s.`, {
      details: { retry_after: decision.retryAfter },
    });
  }
  if (decision.outcome === "limited") {
    throw new ApiError("rate_limit_exceeded", `Rate limit of ${decision.limit} requests per minute exceeded. Retry in ${decision.retryAfter} s.`, {
      details: { limit: decision.limit, retry_after: decision.retryAfter },
    });
  }
}

import { ApiError } from "@ws/shared";
import type { RateLimitDecision } from "./limiter";

/**
 * On every response to an authenticated request, whatever its status. While a
 * key is suspended, X-RateLimit-Reset is when the suspension ends, so that it
 * and Retry-After name the same moment (within the second Retry-After rounds
 * to); otherwise it is the end of the current window.
 */
export function rateLimitHeaders(decision: RateLimitDecision, nowSeconds = Date.now() / 1000): Record<string, string> {
  const reset = decision.outcome === "suspended" ? Math.ceil(nowSeconds) + decision.retryAfter : decision.resetAt;
  const headers: Record<string, string> = {
    "x-ratelimit-limit": String(decision.limit),
    "x-ratelimit-remaining": String(decision.remaining),
    "x-ratelimit-reset": String(reset),
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

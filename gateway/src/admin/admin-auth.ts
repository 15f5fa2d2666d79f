import { timingSafeEqual } from "node:crypto";
import { Elysia } from "elysia";
import { ApiError, requestIdOf, requestPath } from "@ws/shared";
import { extractKey, unauthorized } from "../auth/extract-credential";
import type { AuthFailureLimiter } from "../ratelimit/auth-failure-limiter";
import { ADMIN_DOCUMENT_PATH, ADMIN_PREFIX } from "./operations";

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The management routes: every path under the prefix but its document (the probes and /metrics of the same port need no token either). */
function isManagementPath(path: string): boolean {
  return (path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`)) && path !== ADMIN_DOCUMENT_PATH;
}

/** The token as the API's keys are sent, refused in the management API's own words. */
function adminTokenOf(headers: Headers): string {
  try {
    return extractKey(headers);
  } catch (error) {
    if (error instanceof ApiError && error.code === "missing_token") {
      throw unauthorized("missing_token", "Send the admin token: Authorization: Bearer <ADMIN_TOKEN>.");
    }
    if (error instanceof ApiError && error.code === "invalid_token") {
      throw unauthorized("invalid_token", "The admin token is not valid: send Authorization: Bearer <ADMIN_TOKEN>.");
    }
    throw error;
  }
}

export type AdminAuthFailure = "missing_token" | "invalid_token" | "throttled";

export interface AdminAuthDeps {
  adminToken: string;
  /** Failed admin authentications per client address, counted apart from API keys. */
  failures: AuthFailureLimiter;
  clientAddressOf(request: Request): string;
  /** Once per refused request, with what the client was answered: 401 missing/invalid token, or 429. */
  onFailure?(outcome: AdminAuthFailure): void;
}

/**
 * The management API takes `Authorization: Bearer $ADMIN_TOKEN`. An address past
 * its failure limit is refused whatever token it sends: were the right token
 * admitted, a 200 among the 429s would tell a guesser it had found it. Checked
 * as the request arrives, before its body is read or validated: a caller
 * without the token learns nothing of what it sent, only that it is refused.
 */
export function requireAdminToken(deps: AdminAuthDeps) {
  return new Elysia({ name: "require-admin-token" }).onRequest(async ({ request }) => {
    if (!isManagementPath(requestPath(request))) return;
    try {
      await admit(request);
    } catch (error) {
      // Answered here: an error thrown this early skips the error handler, and with it the body's request id.
      if (error instanceof ApiError) return error.toResponse(requestIdOf(request));
      throw error;
    }
  });

  async function admit(request: Request): Promise<void> {
    const address = deps.clientAddressOf(request);
    try {
      await deps.failures.assertNotBlocked(address);
    } catch (error) {
      deps.onFailure?.("throttled");
      throw error;
    }
    try {
      if (!sameSecret(adminTokenOf(request.headers), deps.adminToken)) throw unauthorized("invalid_token", "The admin token is not valid.");
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      try {
        await deps.failures.recordFailure(address);
      } catch (limited) {
        deps.onFailure?.("throttled");
        throw limited;
      }
      deps.onFailure?.(error.code as AdminAuthFailure);
      throw error;
    }
  }
}

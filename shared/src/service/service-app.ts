import { Elysia } from "elysia";
import type { Pool } from "../db/database";
import { errorHandler } from "../http/error-handler";
import { healthRoutes } from "../http/health";
import { jsonBodies } from "../http/json-body";
import { requirePrincipal } from "../http/require-principal";
import type { Logger } from "../observability/logger";
import { requestMetrics } from "../observability/request-metrics";
import type { VerificationKeys } from "../principal/internal-token";

/** What a resource service's createApp is handed. */
export interface ServiceDeps {
  sql: Pool;
  /** The keys the internal principal is verified with (current first, then the previous one while rotating). */
  principalKeys: VerificationKeys;
  logger: Logger;
  isDraining: () => boolean;
}

/**
 * The common front of every resource service: the error contract, probes, and
 * the principal check that keeps it unreachable around the gateway, and
 * request metrics at `GET /metrics`. Bodies are checked as sent: Elysia's default
 * normalizer cleans a value before checking it, so `"attendees": "x"` became
 * `[{}]` and passed; TypeBox's only drops unknown properties.
 */
export function serviceApp(deps: ServiceDeps, options: { validationCode: "validation_error" | "bad_request" }) {
  return new Elysia({ normalize: "typebox" })
    .use(requestMetrics({ validationCode: options.validationCode }))
    .use(errorHandler({ validationCode: options.validationCode, logger: deps.logger }))
    .use(jsonBodies())
    .use(healthRoutes({ checks: { database: () => deps.sql`select 1` }, isDraining: deps.isDraining }))
    .use(requirePrincipal(deps.principalKeys));
}

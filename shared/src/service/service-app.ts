import { Elysia } from "elysia";
import type { Pool } from "../db/database";
import { errorHandler } from "../http/error-handler";
import { healthRoutes } from "../http/health";
import { jsonBodies } from "../http/json-body";
import { requirePrincipal } from "../http/require-principal";
import type { Logger } from "../observability/logger";
import { httpMetrics, type HttpMetrics } from "../observability/metrics";
import { metricsRoute } from "../observability/request-metrics";
import type { PublicHandlers, ServiceOperationId } from "../operations/public-operations";
import { PUBLIC_SERVICES, type ServiceName } from "../operations/public-operation";
import type { VerificationKeys } from "../principal/internal-token";
import { serveOperations } from "./serve-operations";
import { workspacePurgeRoute, type ServiceInternals } from "./workspace-purge";
import { registerDateTimeFormat } from "../schemas/date-time";

/** What a resource service's createApp is handed. */
export interface ServiceDeps {
  sql: Pool;
  /** The keys the internal principal is verified with (current first, then the previous one while rotating). */
  principalKeys: VerificationKeys;
  logger: Logger;
  isDraining: () => boolean;
  /** The process's registry, with its process and pool metrics, which the front counts requests in; absent in tests that build the app alone. */
  metrics?: HttpMetrics;
  /** Told every /readyz answer, for the readiness metrics. */
  onReadiness?: (ready: boolean) => void;
}

/**
 * A resource service: the error contract, probes, the principal check that
 * keeps it unreachable around the gateway, the metrics at `GET /metrics`,
 * and its operations of the public table, each answered by its handler.
 * Bodies are checked as sent: Elysia's default normalizer cleans a value before
 * checking it, so `"attendees": "x"` became `[{}]` and passed; TypeBox's only
 * drops unknown properties. `internals` answers the gateway's own orders
 * (deleting a workspace's data), which no public operation reaches.
 */
export function serviceApp<Service extends ServiceName>(
  deps: ServiceDeps,
  service: Service,
  handlers: PublicHandlers<ServiceOperationId<Service>>,
  internals: ServiceInternals,
) {
  const { validationCode } = PUBLIC_SERVICES[service];
  registerDateTimeFormat();
  const app = new Elysia({ normalize: "typebox" })
    .use(metricsRoute(deps.metrics ?? httpMetrics()))
    .use(errorHandler({ validationCode, logger: deps.logger }))
    .use(jsonBodies())
    .use(healthRoutes({ checks: { database: () => deps.sql`select 1` }, isDraining: deps.isDraining, onReadiness: deps.onReadiness }))
    .use(requirePrincipal(deps.principalKeys))
    .use(workspacePurgeRoute(deps.principalKeys, internals));
  return serveOperations(app, service, handlers);
}

import process from "node:process";
import { databaseConfig, internalSigningKey, listenHost, logLevel, port, previousInternalSigningKey, shutdownGraceMs } from "../config/common";
import { envReader } from "../config/env";
import { openDatabase, type LoadEmbeddedExtensions } from "../db/database";
import { migrate } from "../db/migrate";
import { createLogger } from "../observability/logger";
import { httpMetrics } from "../observability/metrics";
import { registerProcessMetrics } from "../observability/process-metrics";
import { readinessMetrics } from "../observability/readiness-metrics";
import { signingKeyFrom } from "../principal/internal-token";
import type { BootedProcess } from "../runtime/lifecycle";
import type { ServiceDeps } from "./service-app";
import { concurrencyGate } from "../http/concurrency-gate";
import { answerWithinDeadline } from "../http/request-deadline";
import { UNAUTHENTICATED_SERVICE_PATHS } from "../http/require-principal";

/**
 * API requests wait for one of the pool's connections before they start, but
 * never past their deadline, and are answered by it; probes and metrics never wait.
 */
function gatedByPool(app: { handle(request: Request): Promise<Response> }, poolMax: number) {
  const admit = concurrencyGate(poolMax);
  return (request: Request) => {
    const path = request.url.slice(request.url.indexOf("/", request.url.indexOf("//") + 2));
    if (UNAUTHENTICATED_SERVICE_PATHS.has(path)) return app.handle(request);
    return answerWithinDeadline(request, (deadline) => admit(() => app.handle(request), deadline));
  };
}

export interface ServiceDefinition {
  name: string;
  defaultPort: number;
  migrations: URL;
  /** Loads the PGlite extensions the migrations need in embedded mode (pg_trgm, for example). */
  embeddedExtensions?: LoadEmbeddedExtensions;
  createApp(deps: ServiceDeps): { handle(request: Request): Promise<Response> };
}

/** Reads the service's configuration, opens its database, migrates, and builds its app. */
export async function bootService(service: ServiceDefinition, source: Record<string, string | undefined> = process.env): Promise<BootedProcess> {
  const env = envReader(source);
  const config = {
    port: port(env, "PORT", service.defaultPort),
    host: listenHost(env, "HOST", "0.0.0.0"),
    database: databaseConfig(env, service.name),
    migrateOnStart: env.bool("MIGRATE_ON_START", true),
    signingKey: internalSigningKey(env),
    previousSigningKey: previousInternalSigningKey(env),
    logLevel: logLevel(env),
    shutdownGraceMs: shutdownGraceMs(env),
  };
  const logger = createLogger(service.name, config.logLevel);
  const database = await openDatabase(config.database, service.embeddedExtensions, logger);
  if (config.migrateOnStart) await migrate(database.sql, service.name, service.migrations);
  let draining = false;
  const principalKeys = [config.signingKey, config.previousSigningKey].filter((secret) => secret !== undefined).map(signingKeyFrom);
  const metrics = httpMetrics();
  const processMetrics = registerProcessMetrics(metrics.registry, { database: database.pool });
  const onReadiness = readinessMetrics(metrics.registry);
  const app = service.createApp({ sql: database.sql, principalKeys, logger, isDraining: () => draining, metrics, onReadiness });
  return {
    logger,
    shutdownGraceMs: config.shutdownGraceMs,
    listeners: [{ name: service.name, port: config.port, hostname: config.host, fetch: gatedByPool(app, config.database.poolMax) }],
    beginDrain: () => {
      draining = true;
    },
    close: async () => {
      processMetrics.stop();
      await database.close();
    },
  };
}

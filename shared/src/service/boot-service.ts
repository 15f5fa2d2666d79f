import process from "node:process";
import { databaseConfig, inflightBodyBytes, internalSigningKey, logLevel, port, shutdownGraceMs } from "../config/common";
import { envReader } from "../config/env";
import { openDatabase, type EmbeddedExtensions } from "../db/database";
import { migrate } from "../db/migrate";
import { createLogger } from "../observability/logger";
import { signingKeyFrom } from "../principal/internal-token";
import type { BootedProcess } from "../runtime/lifecycle";
import type { ServiceDeps } from "./service-app";
import { ApiError } from "../errors/api-error";
import { createBodyBudget, type BodyBudget } from "../http/body-budget";
import { concurrencyGate } from "../http/concurrency-gate";
import { requestIdOf } from "../http/request-id";
import { keepReceivedBody, readBodyWithin } from "../http/request-body";
import { UNAUTHENTICATED_SERVICE_PATHS } from "../http/require-principal";
import { DEFAULT_MAX_BODY_BYTES, PUBLIC_ROUTES } from "../routes/public-routes";

const MiB = 1024 * 1024;

interface FrontOptions {
  poolMax: number;
  bodyLimitBytes: number;
  bodyBudget: BodyBudget;
}

/**
 * In front of the app: an API request's body is read first, within the size
 * limit and the process's budget of bodies in memory, and only then does the
 * request wait for one of the pool's connections. A slow upload never holds a
 * connection, and the bytes held stay under the budget until the answer is
 * ready. Probes and metrics never wait.
 */
function serviceFront(app: { handle(request: Request): Promise<Response> }, options: FrontOptions) {
  const admit = concurrencyGate(options.poolMax);
  return async (request: Request) => {
    const path = request.url.slice(request.url.indexOf("/", request.url.indexOf("//") + 2));
    if (UNAUTHENTICATED_SERVICE_PATHS.has(path)) return app.handle(request);
    const lease = options.bodyBudget.lease();
    try {
      if (request.body) keepReceivedBody(request, await readBodyWithin(request, { limitBytes: options.bodyLimitBytes, lease }));
      return await admit(() => app.handle(request));
    } catch (error) {
      if (error instanceof ApiError) return error.toResponse(requestIdOf(request));
      throw error;
    } finally {
      lease.release();
    }
  };
}

export interface ServiceDefinition {
  name: string;
  defaultPort: number;
  migrations: URL;
  /** PGlite extensions the migrations need in embedded mode (pg_trgm, for example). */
  embeddedExtensions?: EmbeddedExtensions;
  createApp(deps: ServiceDeps): { handle(request: Request): Promise<Response> };
}

/** Reads the service's configuration, opens its database, migrates, and builds its app. */
export async function bootService(service: ServiceDefinition, source: Record<string, string | undefined> = process.env): Promise<BootedProcess> {
  const env = envReader(source);
  const bodyLimitBytes = Math.max(DEFAULT_MAX_BODY_BYTES, ...PUBLIC_ROUTES.filter((route) => route.service === service.name).map((route) => route.maxBodyBytes));
  const config = {
    port: port(env, "PORT", service.defaultPort),
    database: databaseConfig(env, service.name),
    migrateOnStart: env.bool("MIGRATE_ON_START", true),
    signingKey: internalSigningKey(env),
    logLevel: logLevel(env),
    shutdownGraceMs: shutdownGraceMs(env),
    inflightBodyBytes: inflightBodyBytes(env, 16 * MiB, bodyLimitBytes),
  };
  const logger = createLogger(service.name, config.logLevel);
  const database = await openDatabase(config.database, service.embeddedExtensions);
  if (config.migrateOnStart) await migrate(database.sql, service.name, service.migrations);
  let draining = false;
  const app = service.createApp({ sql: database.sql, signingKey: signingKeyFrom(config.signingKey), logger, isDraining: () => draining });
  return {
    logger,
    shutdownGraceMs: config.shutdownGraceMs,
    listeners: [
      {
        name: service.name,
        port: config.port,
        facing: "gateway",
        fetch: serviceFront(app, { poolMax: config.database.poolMax, bodyLimitBytes, bodyBudget: createBodyBudget({ totalBytes: config.inflightBodyBytes }) }),
      },
    ],
    beginDrain: () => {
      draining = true;
    },
    close: () => database.close(),
  };
}

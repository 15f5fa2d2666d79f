import process from "node:process";
import { databaseConfig, drainConnectionsMs, inflightBodyBytes, internalSigningKey, listenHost, logLevel, port, previousInternalSigningKey, shutdownGraceMs } from "../config/common";
import { envReader } from "../config/env";
import { CONNECTION_PIPELINE_DEPTH } from "../db/connection-lanes";
import { openDatabase, type LoadEmbeddedExtensions } from "../db/database";
import { migrate } from "../db/migrate";
import { createLogger, type Logger } from "../observability/logger";
import { httpMetrics } from "../observability/metrics";
import { registerProcessMetrics } from "../observability/process-metrics";
import { readinessMetrics } from "../observability/readiness-metrics";
import { countRequests, routeLabels } from "../observability/request-metrics";
import { WORKSPACE_PURGE_PATH } from "./workspace-purge";
import { signingKeyFrom, type VerificationKeys } from "../principal/internal-token";
import type { BootedProcess } from "../runtime/lifecycle";
import type { ServiceDeps } from "./service-app";
import { answerReleasing, releaseHeld } from "../http/answer-holds";
import { createBodyBudget, roomKeptForNewHolders, type BodyBudget } from "../http/body-budget";
import { concurrencyGate } from "../http/concurrency-gate";
import { answerWithinDeadline } from "../http/request-deadline";
import { keepReceivedBody, readBodyWithin } from "../http/request-body";
import { needsPrincipal, UNAUTHENTICATED_SERVICE_PATHS, workspaceOfValidPrincipal } from "../http/require-principal";
import { requestPath } from "../http/request-path";
import type { Deadline } from "../http/deadline";
import { DEFAULT_MAX_BODY_BYTES } from "../operations/public-operation";
import { PUBLIC_OPERATION_LIST } from "../operations/public-operations";

const MiB = 1024 * 1024;

/**
 * The bytes of bodies one workspace may hold at a service: half the budget, so
 * that another workspace always has the other half, but never less than the
 * largest body, which must be able to pass. Undefined when that is the whole
 * budget: a full budget is then the service's 503, not one workspace's 429.
 */
export function workspaceBodyShare(totalBytes: number, largestBodyBytes: number): number | undefined {
  const share = Math.max(largestBodyBytes, Math.floor(totalBytes / 2));
  return share < totalBytes ? share : undefined;
}

/**
 * A service's budget of request bodies by default: four of its largest bodies
 * (16 MiB at least). With a workspace's share at half of it, and the largest
 * body kept free by workspaces already holding some, two workspaces holding
 * bodies as long as they may (sent slowly to their deadline) still leave
 * another workspace's largest body room.
 */
export function defaultInflightBodyBytes(largestBodyBytes: number): number {
  return Math.max(16 * MiB, 4 * largestBodyBytes);
}

interface FrontOptions {
  /** API requests admitted at once; the rest wait their turn, never past their deadline. */
  concurrency: number;
  /** The database connections: while several workspaces are active, each runs at most its share of them. */
  connections: number;
  principalKeys: VerificationKeys;
  bodyLimitBytes: number;
  bodyBudget: BodyBudget;
  logger: Logger;
}

/**
 * What the front calls: Elysia's `fetch`, which answers synchronously when it
 * can and otherwise returns its own promise. (`handle` wraps it in one more
 * async function, a promise and two extra turns of the microtask queue a request.)
 */
interface ServiceApp {
  fetch(request: Request): Response | Promise<Response>;
}

/**
 * In front of the app, within the request's deadline: an API request's
 * principal is verified first, then its body is read, within the size limit,
 * the process's budget of bodies in memory and its workspace's share of that
 * budget, and only then does the request wait for its turn among the requests
 * the service runs at once (never past its deadline), in its workspace's line:
 * while several workspaces are active each runs at most its share of the
 * database connections. A slow upload never holds a turn, the bytes held stay
 * under the budget until the answer is ready, and a workspace whose bodies
 * wait past its share of the connections cannot hold the whole budget meanwhile.
 * A request without a valid principal is refused before its body is read.
 * Probes and metrics never wait.
 */
function serviceFront(app: ServiceApp, options: FrontOptions) {
  const admit = concurrencyGate(options.concurrency, { connections: options.connections });
  // What the app's answer holds (answer-holds.ts) is given back once the answer has gone out.
  const answerFailed = (request: Request, error: unknown) =>
    options.logger.error("an answer failed after it began: its connection is cut", { path: requestPath(request), error: String(error) });
  const serve = async (request: Request) => {
    try {
      return answerReleasing(request, await app.fetch(request), answerFailed);
    } catch (error) {
      releaseHeld(request);
      throw error;
    }
  };
  const workspaceOf = (request: Request, path: string) => workspaceOfValidPrincipal(request, path, options.principalKeys);
  const receiveThenServe = async (request: Request, workspace: string | undefined, deadline: Deadline) => {
    const lease = options.bodyBudget.lease(workspace);
    try {
      keepReceivedBody(request, await readBodyWithin(request, { limitBytes: options.bodyLimitBytes, lease }));
      return await admit(() => serve(request), deadline, workspace);
    } finally {
      lease.release();
      // What the request held for its answer is given back here when it never ran (its turn did not come before its deadline).
      releaseHeld(request);
    }
  };
  return (request: Request) => {
    const path = requestPath(request);
    if (UNAUTHENTICATED_SERVICE_PATHS.has(path)) return app.fetch(request);
    return answerWithinDeadline(request, (deadline) => {
      const workspace = workspaceOf(request, path);
      // Most requests (every GET) have no body: nothing to lease or read, so no extra step before the gate.
      // Without a valid principal the app answers 401 at once, and the body is never read.
      const unread = !request.body || (workspace === undefined && needsPrincipal(path));
      return unread ? admit(() => serve(request), deadline, workspace) : receiveThenServe(request, workspace, deadline);
    });
  };
}

export interface ServiceDefinition {
  name: string;
  defaultPort: number;
  migrations: URL;
  /** Loads the PGlite extensions the migrations need in embedded mode (pg_trgm, for example). */
  embeddedExtensions?: LoadEmbeddedExtensions;
  createApp(deps: ServiceDeps): ServiceApp;
}

/** Reads the service's configuration, opens its database, migrates, and builds its app. */
export async function bootService(service: ServiceDefinition, source: Record<string, string | undefined> = process.env): Promise<BootedProcess> {
  const env = envReader(source);
  const operations = PUBLIC_OPERATION_LIST.filter((operation) => operation.service === service.name);
  const bodyLimitBytes = Math.max(DEFAULT_MAX_BODY_BYTES, ...operations.map((operation) => operation.maxBodyBytes));
  const config = {
    port: port(env, "PORT", service.defaultPort),
    host: listenHost(env, "HOST", "0.0.0.0"),
    database: databaseConfig(env, service.name),
    migrateOnStart: env.bool("MIGRATE_ON_START", true),
    signingKey: internalSigningKey(env),
    previousSigningKey: previousInternalSigningKey(env),
    logLevel: logLevel(env),
    shutdownGraceMs: shutdownGraceMs(env),
    drainConnectionsMs: drainConnectionsMs(env),
    inflightBodyBytes: inflightBodyBytes(env, defaultInflightBodyBytes(bodyLimitBytes), bodyLimitBytes),
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
    listeners: [
      {
        name: service.name,
        port: config.port,
        hostname: config.host,
        facing: "gateway",
        drainConnectionsMs: config.drainConnectionsMs,
        fetch: countRequests(
          serviceFront(app, {
            // As many requests per connection as its pipeline may hold: one that cannot start soon waits
            // here, where it is dropped unrun at its deadline, rather than behind a long pipeline.
            concurrency: config.database.poolMax * CONNECTION_PIPELINE_DEPTH,
            connections: config.database.poolMax,
            principalKeys,
            bodyLimitBytes,
            bodyBudget: createBodyBudget({
              totalBytes: config.inflightBodyBytes,
              perKeyBytes: workspaceBodyShare(config.inflightBodyBytes, bodyLimitBytes),
              holder: "workspace",
              keepFreeForNewHolders: roomKeptForNewHolders(config.inflightBodyBytes, bodyLimitBytes),
            }),
            logger,
          }),
          metrics,
          routeLabels([...operations.map((operation) => operation.path), ...UNAUTHENTICATED_SERVICE_PATHS, WORKSPACE_PURGE_PATH]),
        ),
      },
    ],
    beginDrain: () => {
      draining = true;
    },
    close: async () => {
      processMetrics.stop();
      await database.close();
    },
  };
}

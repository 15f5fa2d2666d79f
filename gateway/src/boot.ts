import { Cluster, Redis } from "ioredis";
import { createBodyBudget, createLogger, migrate, openDatabase, roomKeptForNewHolders, signingKeyFrom, type BootedProcess, type Runtime } from "@ws/shared";
import { createApp } from "./app";
import { publicDocumentation } from "./openapi";
import { createAuthenticator } from "./auth/authenticator";
import { createMemoryEpochs, createRedisEpochs, gatedEpochs, type CredentialEpochs } from "./auth/credential-epochs";
import { createEpochPropagation } from "./auth/epoch-propagation";
import { createKnownKeys } from "./auth/known-keys";
import { LARGEST_BODY, loadGatewayConfig, type GatewayConfig } from "./config";
import { createMemoryAuthFailureLimiter, createRedisAuthFailureLimiter, type FailureKind } from "./ratelimit/auth-failure-limiter";
import { createLimiterStats, type LimiterStats } from "./ratelimit/limiter-stats";
import { createRedisGate } from "./ratelimit/redis-gate";
import { createMemoryLimiter } from "./ratelimit/memory-limiter";
import { createRedisLimiter } from "./ratelimit/redis-limiter";
import { createResilientLimiter } from "./ratelimit/resilient-limiter";
import { LEASE_MS, type RateLimiter } from "./ratelimit/limiter";
import { createRouteTable } from "./routing/route-table";
import { serviceDataOf } from "./admin/workspaces/service-data";
import { createGatewayMetrics } from "./metrics";
import { gatewayProcess } from "./definition";
import { createIdempotency } from "./idempotency";
import { GivenUpAnswers } from "./proxy/given-up-answers";

const IDEMPOTENCY_PURGE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * `timed`: ioredis times each command out itself (a timer per command). The
 * request path's client is opened without: its calls all go through the outage
 * gate, which times them out on one shared timer (several µs less per request).
 */
function connectRedis(config: GatewayConfig, timed: boolean): Redis | Cluster {
  const options = {
    // A slow Redis must not stall requests: fail fast and fall back instead.
    ...(timed ? { commandTimeout: config.redisTimeoutMs } : {}),
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
  };
  if (config.redisCluster) {
    // REDIS_URL names one seed node; its credentials apply to every node the cluster reports.
    const seed = new URL(config.redisUrl!);
    const credentials = {
      ...(seed.username ? { username: decodeURIComponent(seed.username) } : {}),
      ...(seed.password ? { password: decodeURIComponent(seed.password) } : {}),
      ...(seed.protocol === "rediss:" ? { tls: {} } : {}),
    };
    return new Cluster([config.redisUrl!], {
      redisOptions: { ...options, ...credentials },
      enableOfflineQueue: false,
      // One pipeline cannot span slots: here the client groups each turn's calls by node.
      enableAutoPipelining: true,
      clusterRetryStrategy: options.retryStrategy,
    });
  }
  return new Redis(config.redisUrl!, options);
}

const REDIS_CONNECT_WAIT_MS = 3000;

function connected(redis: Redis | Cluster, waitMs: number): Promise<void> {
  if (redis.status === "ready") return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, waitMs);
    function done() {
      clearTimeout(timer);
      redis.off("ready", done);
      resolve();
    }
    redis.once("ready", done);
  });
}

/** Opens the gateway's clients once, migrates, and builds the app; the entry file only serves it on `runtime`. */
export async function bootGateway(runtime: Pick<Runtime, "sendUpstream">, config: GatewayConfig = loadGatewayConfig()): Promise<BootedProcess & { app: ReturnType<typeof createApp>; limiterStats: LimiterStats }> {
  const logger = createLogger("gateway", config.logLevel);
  const database = await openDatabase(config.database, undefined, logger);
  if (config.migrateOnStart) await migrate(database.sql, "gateway", gatewayProcess.migrations);

  const redis = config.redisUrl ? connectRedis(config, true) : null;
  const requestRedis = config.redisUrl ? connectRedis(config, false) : null;
  const clients = [redis, requestRedis].filter((client) => client !== null);
  // Connection errors surface through the limiters, which log once per outage; ioredis would log each one.
  for (const client of clients) client.on("error", () => {});
  // Commands sent before the first connection is up fail at once (no offline queue), which would read as an
  // outage: wait for it briefly. A Redis that is really down is then the outage gate's to handle.
  await Promise.all(clients.map((client) => connected(client, REDIS_CONNECT_WAIT_MS)));
  const limiterStats = createLimiterStats();
  // Every Redis call on the request path goes through this one gate, so an outage is detected once for all of them.
  const redisGate = createRedisGate({ logger, stats: limiterStats, timeoutMs: config.redisTimeoutMs });
  const suspension = { suspendAfterMultiple: config.suspendAfterMultiple, suspendSeconds: config.suspendSeconds };
  let epochs: CredentialEpochs;
  let requestEpochs: CredentialEpochs;
  let limiter: RateLimiter;
  if (redis && requestRedis) {
    epochs = createRedisEpochs(redis);
    requestEpochs = gatedEpochs(createRedisEpochs(requestRedis), redisGate);
    limiter = createResilientLimiter({
      primary: createRedisLimiter(requestRedis, suspension),
      fallback: createMemoryLimiter(suspension, null),
      mode: config.rateLimitFailureMode,
      gate: redisGate,
    });
  } else {
    epochs = requestEpochs = createMemoryEpochs();
    limiter = createMemoryLimiter(suspension, epochs);
  }
  // Through Redis, a replica spends a lease and trusts the epoch read with it for LEASE_MS: a change answers that much later.
  const propagation = createEpochPropagation(epochs, { logger, trustMs: redis ? LEASE_MS : 0 });

  // A workspace holds at most half the budget, whatever number of keys it sends with: the other half is the other workspaces'.
  // And a key, or a workspace, already holding room leaves the largest body free for those holding none.
  const bodyBudget = createBodyBudget({
    totalBytes: config.inflightBodyBytes,
    perKeyBytes: config.inflightBodyBytesPerKey,
    perGroupBytes: Math.max(config.inflightBodyBytesPerKey, Math.floor(config.inflightBodyBytes / 2)),
    keepFreeForNewHolders: roomKeptForNewHolders(config.inflightBodyBytes, LARGEST_BODY),
  });
  const metrics = createGatewayMetrics({ limiterStats, failureMode: config.rateLimitFailureMode, redis: clients.length ? clients : null, database: database.pool, bytesInTransit: bodyBudget.inUse });
  const authFailureLimiter = (kind: FailureKind) =>
    requestRedis
      ? createRedisAuthFailureLimiter(requestRedis, config.authFailuresPerMinute, { gate: redisGate, kind })
      : createMemoryAuthFailureLimiter(config.authFailuresPerMinute);
  const onBackgroundError = (error: unknown) => logger.warn("background write failed", { error: String(error) });
  const knownKeys = createKnownKeys({
    sql: database.sql,
    onError: (error) => logger.warn("loading the hashes of existing keys failed; the next blocked address retries", { error: String(error) }),
  });
  knownKeys.start();
  const idempotency = createIdempotency({ sql: database.sql, logger, upstreamTimeoutMs: config.upstreamTimeoutMs, databaseTimeoutMs: config.databaseTimeoutMs });
  // Expired keys are overwritten when reused anyway; this only gives their space back.
  const purgeTimer = setInterval(() => {
    idempotency.purgeExpired().catch((error: unknown) => logger.warn("idempotency purge failed", { error: String(error) }));
  }, IDEMPOTENCY_PURGE_INTERVAL_MS);

  let draining = false;
  const upstreamReady = (base: string) => async () => {
    const response = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(1500) });
    if (!response.ok) throw new Error(`status ${response.status}`);
  };
  const app = createApp({
    publicRequests: {
      routes: createRouteTable(),
      authenticator: createAuthenticator({
        sql: database.sql,
        databaseTimeoutMs: config.databaseTimeoutMs,
        keyCacheMaxAgeMs: config.keyCacheMaxAgeMs,
        keyPrefix: config.keyPrefix,
        epochs: requestEpochs,
        knownKeys,
        onLookup: metrics.observeKeyLookup,
        onBackgroundError,
      }),
      limiter,
      authFailures: authFailureLimiter("api-key"),
      signingKey: signingKeyFrom(config.signingKey),
      upstreams: config.upstreams,
      sendUpstream: runtime.sendUpstream,
      upstreamTimeoutMs: config.upstreamTimeoutMs,
      bodyBudget,
      defaultRateLimit: config.rateLimitPerMinute,
      logger,
      observe: metrics.observeRequest,
      onUpstreamError: metrics.observeUpstreamError,
      idempotency,
      givenUpAnswers: new GivenUpAnswers(),
    },
    admin: {
      sql: database.sql,
      epochs: propagation,
      keyPrefix: config.keyPrefix,
      logger,
      serviceData: serviceDataOf({ upstreams: config.upstreams, signingKey: signingKeyFrom(config.signingKey), logger }),
    },
    adminToken: config.adminToken,
    adminTimeoutMs: config.adminTimeoutMs,
    adminAuthFailures: authFailureLimiter("admin-token"),
    onAdminAuthFailure: metrics.observeAdminAuthFailure,
    trustedProxies: config.trustedProxies,
    readiness: {
      database: () => database.health.check(),
      ...(redis && config.rateLimitFailureMode === "closed" ? { redis: () => redis.ping() } : {}),
      pages: upstreamReady(config.upstreams.pages),
      calendar: upstreamReady(config.upstreams.calendar),
    },
    isDraining: () => draining,
    logger,
    documentation: publicDocumentation(),
    metrics: metrics.registry,
    onReadiness: metrics.onReadiness,
    cors: config.corsOrigins,
  });

  return {
    app,
    limiterStats,
    logger,
    shutdownGraceMs: config.shutdownGraceMs,
    listeners: [
      { name: "public", port: config.port, hostname: config.host, incoming: app.publicIncoming },
      { name: "internal", port: config.adminPort, hostname: config.adminHost, incoming: app.adminIncoming },
    ],
    beginDrain: () => {
      draining = true;
    },
    async close() {
      metrics.stop();
      propagation.close();
      clearInterval(purgeTimer);
      await limiter.close();
      redis?.disconnect();
      requestRedis?.disconnect();
      await database.close();
    },
  };
}

import { Cluster, Redis } from "ioredis";
import { createLogger, migrate, openDatabase, signingKeyFrom, type BootedProcess } from "@ws/shared";
import { createApp } from "./app";
import { documentationRoutes } from "./openapi";
import { createAuthenticator } from "./auth/authenticator";
import { createMemoryEpochs, createRedisEpochs, type CredentialEpochs } from "./auth/credential-epochs";
import { loadGatewayConfig, type GatewayConfig } from "./config";
import { createMemoryAuthFailureLimiter, createRedisAuthFailureLimiter } from "./ratelimit/auth-failure-limiter";
import { createLimiterStats, type LimiterStats } from "./ratelimit/limiter-stats";
import { createMemoryLimiter } from "./ratelimit/memory-limiter";
import { createRedisLimiter } from "./ratelimit/redis-limiter";
import { createResilientLimiter } from "./ratelimit/resilient-limiter";
import type { RateLimiter } from "./ratelimit/limiter";
import { createRouteTable } from "./routing/route-table";
import { createGatewayMetrics } from "./metrics";
import { createIdempotency } from "./idempotency";

export const MIGRATIONS = new URL("./migrations/", import.meta.url);
const IDEMPOTENCY_PURGE_INTERVAL_MS = 10 * 60 * 1000;

function connectRedis(config: GatewayConfig): Redis | Cluster {
  const options = {
    // A slow Redis must not stall requests: fail fast and fall back instead.
    commandTimeout: config.redisTimeoutMs,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
    // Concurrent requests' scripts go out in one write and come back in one read.
    enableAutoPipelining: true,
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
      enableAutoPipelining: true,
      clusterRetryStrategy: options.retryStrategy,
    });
  }
  return new Redis(config.redisUrl!, options);
}

/** Opens the gateway's clients once, migrates, and builds the app; the entry file only serves it. */
export async function bootGateway(config: GatewayConfig = loadGatewayConfig()): Promise<BootedProcess & { app: ReturnType<typeof createApp>; limiterStats: LimiterStats }> {
  const logger = createLogger("gateway", config.logLevel);
  const database = await openDatabase(config.database);
  if (config.migrateOnStart) await migrate(database.sql, "gateway", MIGRATIONS);

  const redis = config.redisUrl ? connectRedis(config) : null;
  // Connection errors surface through the limiters, which log once per outage; ioredis would log each one.
  redis?.on("error", () => {});
  const limiterStats = createLimiterStats();
  const suspension = { suspendAfterMultiple: config.suspendAfterMultiple, suspendSeconds: config.suspendSeconds };
  let epochs: CredentialEpochs;
  let limiter: RateLimiter;
  if (redis) {
    epochs = createRedisEpochs(redis);
    limiter = createResilientLimiter({
      primary: createRedisLimiter(redis, suspension),
      fallback: createMemoryLimiter(suspension, null),
      mode: config.rateLimitFailureMode,
      logger,
      stats: limiterStats,
    });
  } else {
    epochs = createMemoryEpochs();
    limiter = createMemoryLimiter(suspension, epochs);
  }

  const idempotency = createIdempotency({ sql: database.sql, logger, upstreamTimeoutMs: config.upstreamTimeoutMs });
  // Expired keys are overwritten when reused anyway; this only gives their space back.
  const purgeTimer = setInterval(() => {
    idempotency.purgeExpired().catch((error: unknown) => logger.warn("idempotency purge failed", { error: String(error) }));
  }, IDEMPOTENCY_PURGE_INTERVAL_MS);

  const metrics = createGatewayMetrics(limiterStats);
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
        keyPrefix: config.keyPrefix,
        epochs,
        onBackgroundError: (error) => logger.warn("background write failed", { error: String(error) }),
      }),
      limiter,
      authFailures: redis
        ? createRedisAuthFailureLimiter(redis, config.authFailuresPerMinute, { stats: limiterStats })
        : createMemoryAuthFailureLimiter(config.authFailuresPerMinute),
      signingKey: signingKeyFrom(config.signingKey),
      upstreams: config.upstreams,
      upstreamTimeoutMs: config.upstreamTimeoutMs,
      defaultRateLimit: config.rateLimitPerMinute,
      logger,
      observe: metrics.observeRequest,
      onUpstreamError: metrics.observeUpstreamError,
      idempotency,
    },
    admin: { sql: database.sql, epochs, keyPrefix: config.keyPrefix, logger },
    adminToken: config.adminToken,
    readiness: {
      database: () => database.sql`select 1`,
      ...(redis && config.rateLimitFailureMode === "closed" ? { redis: () => redis.ping() } : {}),
      pages: upstreamReady(config.upstreams.pages),
      calendar: upstreamReady(config.upstreams.calendar),
    },
    isDraining: () => draining,
    logger,
    documentation: documentationRoutes(),
    metrics: metrics.registry,
    cors: config.corsOrigins,
  });

  return {
    app,
    limiterStats,
    logger,
    shutdownGraceMs: config.shutdownGraceMs,
    listeners: [
      // The body limit is enforced per route by the gateway; this only caps what the runtime buffers.
      { name: "public", port: config.port, fetch: app.publicFetch, maxBodyBytes: 64 * 1024 * 1024 },
      { name: "internal", port: config.adminPort, fetch: app.adminFetch },
    ],
    beginDrain: () => {
      draining = true;
    },
    async close() {
      clearInterval(purgeTimer);
      await limiter.close();
      redis?.disconnect();
      await database.close();
    },
  };
}

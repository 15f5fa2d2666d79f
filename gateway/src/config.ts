import process from "node:process";
import { ConfigError, databaseConfig, envReader, internalSigningKey, logLevel, port, shutdownGraceMs } from "@ws/shared";
import { parseCorsOrigins } from "./cors";

/** Every setting of the gateway, read once at start; a bad value stops the process naming the variable. */
export function loadGatewayConfig(source: Record<string, string | undefined> = process.env) {
  const env = envReader(source);
  const keyPrefix = env.string("KEY_PREFIX", "wsk");
  if (!/^[a-z][a-z0-9]{1,15}$/.test(keyPrefix)) throw new ConfigError("KEY_PREFIX", "must be 2 to 16 lowercase letters or digits, starting with a letter.");
  const adminToken = env.optionalString("ADMIN_TOKEN");
  if (adminToken !== undefined && adminToken.length < 16) throw new ConfigError("ADMIN_TOKEN", "must be at least 16 characters long.");
  return {
    port: port(env, "PORT", 8080),
    adminPort: port(env, "ADMIN_PORT", 8081),
    adminToken,
    database: databaseConfig(env, "gateway"),
    migrateOnStart: env.bool("MIGRATE_ON_START", true),
    redisUrl: env.url("REDIS_URL", ["redis:", "rediss:"]),
    redisCluster: env.bool("REDIS_CLUSTER", false),
    redisTimeoutMs: env.int("REDIS_TIMEOUT_MS", 250, { min: 10, max: 10_000 }),
    rateLimitPerMinute: env.int("RATE_LIMIT_PER_MINUTE", 1000, { min: 1, max: 100_000_000 }),
    rateLimitFailureMode: env.oneOf("RATE_LIMIT_FAILURE_MODE", ["open", "closed"] as const, "open"),
    suspendAfterMultiple: env.int("RATE_LIMIT_SUSPEND_AFTER_MULTIPLE", 2, { min: 1, max: 1000 }),
    suspendSeconds: env.int("RATE_LIMIT_SUSPEND_SECONDS", 300, { min: 1, max: 86_400 }),
    authFailuresPerMinute: env.int("AUTH_FAILURE_LIMIT_PER_MINUTE", 100, { min: 1, max: 1_000_000 }),
    keyPrefix,
    upstreams: {
      pages: env.url("PAGES_URL", ["http:", "https:"], "http://127.0.0.1:8091")!.replace(/\/$/, ""),
      calendar: env.url("CALENDAR_URL", ["http:", "https:"], "http://127.0.0.1:8092")!.replace(/\/$/, ""),
    },
    upstreamTimeoutMs: env.int("UPSTREAM_TIMEOUT_MS", 10_000, { min: 50, max: 600_000 }),
    corsOrigins: parseCorsOrigins(env.optionalString("CORS_ALLOWED_ORIGINS")),
    signingKey: internalSigningKey(env),
    logLevel: logLevel(env),
    shutdownGraceMs: shutdownGraceMs(env),
  };
}
export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

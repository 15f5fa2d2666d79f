import process from "node:process";
import { ConfigError, PUBLIC_OPERATION_LIST, databaseConfig, envReader, inflightBodyBytes, internalSigningKey, listenHost, logLevel, port, shutdownGraceMs } from "@ws/shared";
import { InvalidRangeError, parseTrustedProxies, type TrustedProxies } from "./client-address/trusted-proxies";

function trustedProxies(value: string | undefined): TrustedProxies {
  try {
    return parseTrustedProxies(value);
  } catch (error) {
    if (error instanceof InvalidRangeError) throw new ConfigError("TRUSTED_PROXIES", `must list IPv4 and IPv6 addresses and CIDR ranges, separated by commas: ${error.message}`);
    throw error;
  }
}
import { gatewayProcess } from "./definition";

const MiB = 1024 * 1024;
/** The largest request body any public operation takes. */
export const LARGEST_BODY = Math.max(...PUBLIC_OPERATION_LIST.map((operation) => operation.maxBodyBytes));
import { parseCorsOrigins } from "./cors";

/** Every setting of the gateway, read once at start; a bad value stops the process naming the variable. */
export function loadGatewayConfig(source: Record<string, string | undefined> = process.env) {
  const env = envReader(source);
  const keyPrefix = env.string("KEY_PREFIX", "wsk");
  if (!/^[a-z][a-z0-9]{1,15}$/.test(keyPrefix)) throw new ConfigError("KEY_PREFIX", "must be 2 to 16 lowercase letters or digits, starting with a letter.");
  const adminToken = env.optionalString("ADMIN_TOKEN");
  if (adminToken !== undefined && adminToken.length < 16) throw new ConfigError("ADMIN_TOKEN", "must be at least 16 characters long.");
  const host = listenHost(env, "HOST", "0.0.0.0");
  const inflightBodies = inflightBodyBytes(env, 64 * MiB, LARGEST_BODY);
  const inflightBodiesPerKey = env.int("MAX_INFLIGHT_BODY_BYTES_PER_KEY", Math.min(32 * MiB, inflightBodies), { min: LARGEST_BODY, max: inflightBodies });
  return {
    port: port(env, "PORT", gatewayProcess.defaultPort),
    host,
    adminPort: port(env, "ADMIN_PORT", gatewayProcess.defaultAdminPort),
    adminHost: listenHost(env, "ADMIN_HOST", host),
    trustedProxies: trustedProxies(env.optionalString("TRUSTED_PROXIES")),
    adminToken,
    database: databaseConfig(env, "gateway"),
    migrateOnStart: env.bool("MIGRATE_ON_START", true),
    databaseTimeoutMs: env.int("DATABASE_TIMEOUT_MS", 2_000, { min: 10, max: 600_000 }),
    adminTimeoutMs: env.int("ADMIN_TIMEOUT_MS", 5_000, { min: 50, max: 600_000 }),
    keyCacheMaxAgeMs: env.int("KEY_CACHE_MAX_AGE_MS", 60_000, { min: 100, max: 86_400_000 }),
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
    inflightBodyBytes: inflightBodies,
    inflightBodyBytesPerKey: inflightBodiesPerKey,
    corsOrigins: parseCorsOrigins(env.optionalString("CORS_ALLOWED_ORIGINS")),
    signingKey: internalSigningKey(env),
    logLevel: logLevel(env),
    shutdownGraceMs: shutdownGraceMs(env),
  };
}
export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

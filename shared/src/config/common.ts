import type { DatabaseConfig } from "../db/database";
import type { LogLevel } from "../observability/logger";
import { LOG_LEVELS } from "../observability/logger";
import { isIP } from "node:net";
import { DRAIN_CONNECTIONS_MS } from "../runtime/connection-drain";
import { ConfigError, envReader } from "./env";

type Env = ReturnType<typeof envReader>;

/** Settings every process reads the same way, so the variable names never drift. */
export function databaseConfig(env: Env, service: string): DatabaseConfig {
  return {
    url: env.url("DATABASE_URL", ["postgres:", "postgresql:"]),
    dataDir: `${env.string("DATA_DIR", ".data")}/${service}`,
    poolMax: env.int("DB_POOL_MAX", 10, { min: 1, max: 200 }),
  };
}

export function logLevel(env: Env): LogLevel {
  return env.oneOf("LOG_LEVEL", LOG_LEVELS, "info");
}

export function port(env: Env, name: string, fallback: number): number {
  return env.int(name, fallback, { min: 0, max: 65535 });
}

/** The secret the gateway signs principals with and the services verify them with. */
export function internalSigningKey(env: Env): string {
  return env.secret("INTERNAL_SIGNING_KEY", 32);
}

/**
 * A key the services still accept but nobody signs with, so the signing key can
 * be rotated without a failed request (deploy/README.md, "Rotating the internal
 * signing key").
 */
export function previousInternalSigningKey(env: Env): string | undefined {
  return env.optionalString("INTERNAL_SIGNING_KEY_PREVIOUS") === undefined ? undefined : env.secret("INTERNAL_SIGNING_KEY_PREVIOUS", 32);
}

/**
 * The address a listener binds: 0.0.0.0 (every interface, as in a container),
 * 127.0.0.1 (this machine only), :: or any address of the host.
 */
export function listenHost(env: Env, name: string, fallback: string): string {
  const value = env.string(name, fallback);
  if (value !== "localhost" && isIP(value) === 0) {
    throw new ConfigError(name, `must be an IP address to listen on (0.0.0.0, 127.0.0.1, :: or an address of this host), got "${value}".`);
  }
  return value;
}

/**
 * MAX_INFLIGHT_BODY_BYTES: the request-body bytes one process holds at once
 * (shared/src/http/body-budget.ts). It must fit the largest body the process
 * accepts, or such a body could never pass.
 */
export function inflightBodyBytes(env: Env, fallback: number, largestBody: number): number {
  return env.int("MAX_INFLIGHT_BODY_BYTES", fallback, { min: largestBody, max: 16 * 1024 ** 3 });
}

/** A service's: how long its drain keeps answering, each answer closing its connection (connection-drain.ts); 0 stops at once. */
export function drainConnectionsMs(env: Env): number {
  return env.int("DRAIN_CONNECTIONS_MS", DRAIN_CONNECTIONS_MS, { min: 0, max: 600_000 });
}

export function shutdownGraceMs(env: Env): number {
  return env.int("SHUTDOWN_GRACE_MS", 10_000, { min: 0, max: 600_000 });
}

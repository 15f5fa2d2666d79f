import { mkdir } from "node:fs/promises";
import postgres from "postgres";
import { connectionLanes } from "./connection-lanes";
import { countedSockets } from "./counted-sockets";
import type { Logger } from "../observability/logger";
import { healingPool, type DatabaseHealth } from "./database-monitor";

/** A pool or a transaction: repositories accept either, so services decide the transaction. */
export type Sql = postgres.Sql | postgres.TransactionSql;
export type Pool = postgres.Sql;
export type TransactionSql = postgres.TransactionSql;

export interface DatabaseConfig {
  /** A postgres:// URL; absent means an embedded PGlite kept in dataDir. */
  url?: string;
  dataDir: string;
  poolMax: number;
}

export interface Database {
  sql: Pool;
  embedded: boolean;
  /** Connections the pool has open now, and the most it opens: for metrics. */
  pool: { open(): number; max: number };
  health: DatabaseHealth;
  close(): Promise<void>;
}

/** PGlite extensions a service's migrations need when running embedded. */
export type EmbeddedExtensions = Record<string, unknown>;

/**
 * Loads the extensions only when embedded: PGlite is an optional dependency,
 * absent from production images, so nothing may import it statically.
 */
export type LoadEmbeddedExtensions = () => Promise<EmbeddedExtensions>;

/**
 * One pool per process, made at start. Embedded mode serves PGlite over a local
 * socket so the same `postgres` driver and the same SQL run in both modes. A
 * server pool is `poolMax` lanes of one connection (connection-lanes.ts), so
 * that queries can pipeline under load; it fails fast while PostgreSQL is
 * unreachable and renews itself when it is back (database-monitor.ts).
 */
export async function openDatabase(config: DatabaseConfig, loadExtensions?: LoadEmbeddedExtensions, logger?: Logger): Promise<Database> {
  // A connection that failed before the driver listened may never write again: the healing pool renews the pool.
  let onEarlyError = () => {};
  const sockets = countedSockets(() => onEarlyError());
  const options = {
    max: config.poolMax,
    idle_timeout: 30,
    connect_timeout: 10,
    // The driver's default back-off grows to 20 s between reconnects after a long outage: cap it.
    backoff: (attempt: number) => Math.min(0.02 * 2 ** attempt, 0.25),
    onnotice: () => {},
    socket: sockets.create,
  };
  if (config.url) {
    const url = config.url;
    // Never connects; `path` only names it in the "connection ended" errors it answers with (readiness shows them).
    const refusing = postgres(url, { ...options, max: 1, path: "(database unreachable)" });
    await refusing.end();
    const probe = (onclose: () => void) => postgres(url, { ...options, max: 1, connect_timeout: 2, backoff: () => 0.05, max_lifetime: null, onclose });
    const open = (onclose: () => void) => connectionLanes(() => postgres(url, { ...options, max: 1, onclose }), config.poolMax);
    const healing = healingPool({ open, refusing, probe, logger });
    onEarlyError = healing.connectionsLost;
    return { sql: healing.pool, embedded: false, pool: { open: sockets.open, max: config.poolMax }, health: healing.health, close: () => healing.close() };
  }
  // Only here, when DATABASE_URL is absent, is the embedded database loaded.
  const { PGlite } = await import("@electric-sql/pglite");
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const extensions = loadExtensions ? await loadExtensions() : {};
  await mkdir(config.dataDir, { recursive: true });
  const db = await PGlite.create(config.dataDir, { extensions } as Parameters<typeof PGlite.create>[1]);
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 2 });
  await server.start();
  // PGlite runs one query at a time, and the socket server's multiplexer mixes up
  // the extended-protocol messages of concurrent connections ("portal does not
  // exist"): one connection, with requests queueing in the driver, is both correct and as fast.
  const sql = postgres(`postgres://postgres@${server.getServerConn()}/postgres`, { ...options, max: 1 });
  return {
    sql,
    embedded: true,
    pool: { open: sockets.open, max: 1 },
    // In the process itself: up as long as the process is.
    health: { up: true, check: async () => void (await sql`select 1`) },
    async close() {
      await sql.end({ timeout: 5 });
      await server.stop();
      await db.close();
    },
  };
}

import { mkdir } from "node:fs/promises";
import postgres from "postgres";
import { countedSockets } from "./counted-sockets";

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
 * socket so the same `postgres` driver and the same SQL run in both modes.
 */
export async function openDatabase(config: DatabaseConfig, loadExtensions?: LoadEmbeddedExtensions): Promise<Database> {
  const sockets = countedSockets();
  const options = {
    max: config.poolMax,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    socket: sockets.create,
  };
  if (config.url) {
    const sql = postgres(config.url, options);
    return { sql, embedded: false, pool: { open: sockets.open, max: config.poolMax }, close: () => sql.end({ timeout: 5 }) };
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
    async close() {
      await sql.end({ timeout: 5 });
      await server.stop();
      await db.close();
    },
  };
}

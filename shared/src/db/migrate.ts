import { readdir, readFile } from "node:fs/promises";
import type { Pool } from "./database";

/** All services share one lock so their first migrations never race on the catalog. */
const MIGRATION_LOCK = 7_261_034;
const FILE_NAME = /^(\d+)_[\w-]+\.sql$/;

/**
 * Applies a service's numbered SQL files (`001_name.sql`, …) that have not run
 * yet, each in order, all in one transaction under an advisory lock.
 */
export async function migrate(sql: Pool, service: string, directory: URL): Promise<string[]> {
  const files = (await readdir(directory)).filter((name) => FILE_NAME.test(name)).sort();
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`
      create table if not exists schema_migrations (
        service text not null,
        version integer not null,
        name text not null,
        applied_at timestamptz not null default now(),
        primary key (service, version)
      )`;
    const rows = await tx<{ version: number }[]>`select version from schema_migrations where service = ${service}`;
    const applied = new Set(rows.map((row) => row.version));
    const done: string[] = [];
    for (const name of files) {
      const version = Number(FILE_NAME.exec(name)![1]);
      if (applied.has(version)) continue;
      await tx.unsafe(await readFile(new URL(name, directory), "utf8"));
      await tx`insert into schema_migrations (service, version, name) values (${service}, ${version}, ${name})`;
      done.push(name);
    }
    return done;
  });
}

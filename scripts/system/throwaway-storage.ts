import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

export interface ThrowawayStorage {
  env: Record<string, string>;
  databaseUrl?: string;
  dispose(): Promise<void>;
}

/**
 * Real PostgreSQL when DATABASE_URL is set: a fresh database per system, dropped
 * afterwards, so runs never see each other's data. Otherwise embedded PGlite in
 * a temporary folder.
 */
export async function throwawayStorage(serverUrl = process.env.DATABASE_URL): Promise<ThrowawayStorage> {
  const dataDir = await mkdtemp(join(tmpdir(), "wsapi-test-"));
  if (!serverUrl) {
    return { env: { DATA_DIR: dataDir }, dispose: () => rm(dataDir, { recursive: true, force: true }) };
  }
  const name = `wsapi_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    databaseUrl: url.toString(),
    async dispose() {
      await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

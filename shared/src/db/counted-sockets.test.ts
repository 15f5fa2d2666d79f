import { afterAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testStorage, type TestStorage } from "../../../tests/harness/database";
import { openDatabase, type Database } from "./database";

const storages: TestStorage[] = [];
afterAll(async () => {
  for (const storage of storages) await storage.dispose();
});

/** A fresh database: real PostgreSQL when DATABASE_URL is set, else embedded. */
async function open(poolMax: number, applicationName: string): Promise<Database> {
  const storage = await testStorage();
  storages.push(storage);
  if (!storage.databaseUrl) return openDatabase({ dataDir: join(await mkdtemp(join(tmpdir(), "pool-count-")), "db"), poolMax });
  const url = new URL(storage.databaseUrl);
  url.searchParams.set("application_name", applicationName);
  return openDatabase({ url: url.toString(), dataDir: "", poolMax });
}

describe("the pool's open connections", () => {
  test("when queries run in parallel and the pool ends, then the count follows the connections opened and closed", async () => {
    const name = `pool_count_${process.pid}_${Date.now()}`;
    const database = await open(3, name);
    try {
      expect(database.pool.open()).toBe(0);
      // One per turn of the event loop: the queries of one turn share a connection.
      const sleeping: Promise<unknown>[] = [];
      for (let i = 0; i < 3; i++) {
        sleeping.push(database.sql`select pg_sleep(0.05)`.execute());
        await Bun.sleep(1);
      }
      await Promise.all(sleeping);
      const expected = database.embedded ? 1 : 3;
      expect(database.pool.open()).toBe(expected);
      expect(database.pool.max).toBe(expected);
      if (!database.embedded) {
        // PostgreSQL agrees: it sees exactly these connections from this pool.
        const [row] = await database.sql<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where application_name = ${name}`;
        expect(row!.n).toBe(3);
      }
    } finally {
      await database.close();
    }
    expect(database.pool.open()).toBe(0);
  }, 60_000);

  test("when the server cannot be reached, then no connection is counted once the attempt fails", async () => {
    const database = await openDatabase({ url: "postgres://postgres@127.0.0.1:1/none", dataDir: "", poolMax: 2 });
    try {
      await expect(database.sql`select 1`).rejects.toThrow();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(database.pool.open()).toBe(0);
    } finally {
      await database.close();
    }
  });
});

describe.skipIf(!process.env.DATABASE_URL)("a pool when the process has no file descriptor left", () => {
  test("when its connection is cut while no descriptor is left, then its query fails without stopping the process, and it serves again once descriptors are free", async () => {
    const storage = await testStorage();
    storages.push(storage);
    const fixture = join(import.meta.dir, "fixtures", "descriptors-run-out.ts");
    // A shell sets the limit low for the child only: exhausting this test process's own descriptors would break the run.
    const child = Bun.spawn(["sh", "-c", 'ulimit -n 256 && exec "$0" "$1"', process.execPath, fixture], {
      env: { ...process.env, FIXTURE_DATABASE_URL: storage.databaseUrl! },
      stdout: "pipe",
      stderr: "pipe",
    });
    const timer = setTimeout(() => child.kill(), 30_000);
    const [exitCode, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
    clearTimeout(timer);
    expect({ exitCode, stderr: exitCode === 0 ? "" : stderr.slice(-2000) }).toEqual({ exitCode: 0, stderr: "" });
    const result = JSON.parse(stdout.trim().split("\n").at(-1)!);
    expect(result.descriptorsTaken).toBeGreaterThan(100);
    expect(result.failedWhileOut).toBe(true);
    expect(result.recoveredAfterMs).not.toBeNull();
    expect(result.recoveredAfterMs).toBeLessThan(5000);
  }, 60_000);
});

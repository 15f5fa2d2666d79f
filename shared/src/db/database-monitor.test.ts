import { afterAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { testStorage, type TestStorage } from "../../../tests/harness/database";
import { openDatabase } from "./database";

const storages: TestStorage[] = [];
afterAll(async () => {
  for (const storage of storages) await storage.dispose();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!process.env.DATABASE_URL)("a pool whose connection PostgreSQL ends", () => {
  test("when a backend of the pool is terminated, then the whole pool is renewed at once, so no request waits on a connection the driver may never write on again", async () => {
    const storage = await testStorage();
    storages.push(storage);
    const name = `renewed_${process.pid}_${Date.now()}`;
    const url = new URL(storage.databaseUrl!);
    url.searchParams.set("application_name", name);
    const database = await openDatabase({ url: url.toString(), dataDir: "", poolMax: 4 });
    // Watches and terminates from a connection of its own, outside the pool.
    const admin = postgres(storage.databaseUrl!, { max: 1, onnotice: () => {} });
    try {
      // Every lane opened: one query per turn of the event loop goes to the next lane.
      const sleeping: Promise<unknown>[] = [];
      for (let i = 0; i < 4; i++) {
        sleeping.push(database.sql`select pg_sleep(0.05)`.execute());
        await sleep(1);
      }
      await Promise.all(sleeping);
      const backends = async () =>
        (await admin<{ pid: number }[]>`select pid from pg_stat_activity where application_name = ${name}`).map((row) => row.pid);
      const victim = (await database.sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
      const before = await backends();
      // The lanes opened and the probe's connection.
      expect(before.length).toBeGreaterThanOrEqual(3);
      await admin`select pg_terminate_backend(${victim})`;
      // The probe's own connection stays; every request connection open before the termination is ended.
      let left = before;
      for (let waited = 0; waited < 3000 && left.length > 1; waited += 100) {
        await sleep(100);
        const now = new Set(await backends());
        left = before.filter((pid) => now.has(pid));
      }
      expect(left.length).toBeLessThanOrEqual(1);
      expect((await database.sql<{ one: number }[]>`select 1 as one`)[0]!.one).toBe(1);
    } finally {
      await admin.end();
      await database.close();
    }
  }, 60_000);
});

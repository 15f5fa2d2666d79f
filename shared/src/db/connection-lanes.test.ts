import { afterAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { connectionLanes } from "./connection-lanes";

const url = process.env.DATABASE_URL;
const opened: postgres.Sql[] = [];
afterAll(async () => {
  await Promise.all(opened.map((sql) => sql.end({ timeout: 1 })));
});

function lanes(size: number, applicationName = `lanes_${process.pid}_${Date.now()}`) {
  const sql = connectionLanes(() => postgres(url!, { max: 1, onnotice: () => {}, connection: { application_name: applicationName } }), size);
  opened.push(sql);
  return sql;
}

const countBy = <T>(values: T[]) => values.reduce((counts, value) => counts.set(value, (counts.get(value) ?? 0) + 1), new Map<T, number>());

// Lanes are what a pool on a PostgreSQL server is made of; the embedded database has one connection and no lanes.
describe.skipIf(!url)("connection lanes", () => {
  test("when more queries run than there are connections, then they spread evenly over the connections and each gets its own answer", async () => {
    const sql = lanes(3);
    const rows = await Promise.all(Array.from({ length: 30 }, (_, i) => sql<{ n: number; pid: number }[]>`select ${i}::int as n, pg_backend_pid() as pid`));
    expect(rows.map(([row]) => row!.n)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    const perConnection = countBy(rows.map(([row]) => row!.pid));
    expect(perConnection.size).toBe(3);
    expect([...perConnection.values()]).toEqual([10, 10, 10]);
  });

  test("when one connection runs a long query, then short queries go to the others and do not wait for it", async () => {
    const sql = lanes(2);
    let longDone = false;
    const long = sql<{ pid: number }[]>`select pg_backend_pid() as pid, pg_sleep(0.6)`.then((rows) => ((longDone = true), rows[0]!.pid));
    await Bun.sleep(20);
    const short: number[] = [];
    for (let i = 0; i < 20; i++) short.push((await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid);
    expect(longDone).toBe(false);
    expect(short).not.toContain(await long);
  });

  test("when a query is written as a fragment of another, then only the query that contains it is sent", async () => {
    const sql = lanes(2);
    const columns = sql.unsafe("1 as one");
    const condition = sql`where ${2} > 1`;
    const [row] = await sql<{ one: number; two: number }[]>`select ${columns}, 2 as two ${condition}`;
    expect(row).toEqual({ one: 1, two: 2 });
    // A fragment that was never sent leaves its lane free: two queries at once still take both connections.
    const pids = await Promise.all([1, 2].map(() => sql<{ pid: number }[]>`select pg_backend_pid() as pid, pg_sleep(0.05)`));
    expect(new Set(pids.map(([row]) => row!.pid)).size).toBe(2);
  });

  test("when a transaction is open, then its statements share one connection and other queries go to another", async () => {
    const sql = lanes(2);
    const outside: number[] = [];
    const inside = await sql.begin(async (tx) => {
      const [first] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
      for (let i = 0; i < 5; i++) outside.push((await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid);
      const [second] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
      return [first!.pid, second!.pid];
    });
    expect(inside[0]).toBe(inside[1]!);
    expect(outside).not.toContain(inside[0]!);
  });

  test("when a query fails, then its connection serves the next queries", async () => {
    const sql = lanes(1);
    await expect(sql`select 1 / ${0}::int`).rejects.toThrow("division by zero");
    const [row] = await sql<{ ok: boolean }[]>`select true as ok`;
    expect(row!.ok).toBe(true);
  });

  test("when the pool ends, then every lane's connection closes", async () => {
    const name = `lanes_end_${process.pid}_${Date.now()}`;
    const sql = lanes(3, name);
    const observer = postgres(url!, { max: 1, onnotice: () => {} });
    opened.push(observer);
    const connected = async () => (await observer<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where application_name = ${name}`)[0]!.n;
    await Promise.all([1, 2, 3].map(() => sql`select pg_sleep(0.05)`));
    expect(await connected()).toBe(3);
    await sql.end({ timeout: 1 });
    for (let i = 0; i < 50 && (await connected()) > 0; i++) await Bun.sleep(20);
    expect(await connected()).toBe(0);
  });

  test("when a lane would be held on its own, then the pool says it cannot", () => {
    const sql = lanes(2);
    expect(() => sql.reserve()).toThrow("not available on connection lanes");
  });
});

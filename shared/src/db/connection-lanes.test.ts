import { afterAll, describe, expect, test } from "bun:test";
import net from "node:net";
import postgres from "postgres";
import { connectionLanes } from "./connection-lanes";

const url = process.env.DATABASE_URL;
const opened: postgres.Sql[] = [];
afterAll(async () => {
  await Promise.all(opened.map((sql) => sql.end({ timeout: 1 })));
});

function lanes(size: number, applicationName = `lanes_${process.pid}_${Date.now()}`, options: { maxLead?: number; socket?: () => net.Socket } = {}) {
  const { socket, ...laneOptions } = options;
  const sql = connectionLanes(() => postgres(url!, { max: 1, onnotice: () => {}, connection: { application_name: applicationName }, ...(socket ? { socket } : {}) }), size, laneOptions);
  opened.push(sql);
  return sql;
}

/** Sockets to the test database that count the writes made on them. */
function countingSockets() {
  const { hostname, port } = new URL(url!);
  const counted = { writes: 0 };
  const socket = () => {
    const made = net.connect(Number(port || 5432), hostname);
    const write = made.write;
    made.write = function (this: net.Socket, ...args: unknown[]) {
      counted.writes++;
      return (write as (...args: unknown[]) => boolean).apply(this, args);
    } as net.Socket["write"];
    return made;
  };
  return { counted, socket };
}

/** The driver sends a query a microtask after it is first awaited (or executed). */
const sentByTheDriver = async () => {
  for (let i = 0; i < 3; i++) await null;
};

/** A later turn of the event loop: the lanes forget the turn's lane in an immediate scheduled when its first query was sent. */
const nextTurn = () => Bun.sleep(1);

// Lanes are what a pool on a PostgreSQL server is made of; the embedded database has one connection and no lanes.
describe.skipIf(!url)("connection lanes", () => {
  test("when queries are sent in one turn, then they share a connection until it runs the lead more than the least busy one, and each gets its own answer", async () => {
    const sql = lanes(3, undefined, { maxLead: 4 });
    const rows = await Promise.all(Array.from({ length: 12 }, (_, i) => sql<{ n: number; pid: number }[]>`select ${i}::int as n, pg_backend_pid() as pid`));
    expect(rows.map(([row]) => row!.n)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    const pids = rows.map(([row]) => row!.pid);
    // In the order sent: four on one connection, the next four on another, the last four on the third.
    expect([0, 4, 8].map((start) => new Set(pids.slice(start, start + 4)).size)).toEqual([1, 1, 1]);
    expect(new Set(pids).size).toBe(3);
  });

  test("when queries are sent in one turn, then their connection writes them in one write", async () => {
    const { counted, socket } = countingSockets();
    const sql = lanes(2, undefined, { socket });
    const statement = (n: number) => sql<{ n: number }[]>`select ${n}::int as n`;
    // Prepared on both connections first (a statement's first run is not pipelined): on the first while idle, then on the second while the first sleeps.
    await statement(0);
    const sleeping = sql`select pg_sleep(0.1)`.execute();
    await nextTurn();
    await statement(0);
    await sleeping;
    const before = counted.writes;
    const rows = await Promise.all(Array.from({ length: 6 }, (_, i) => statement(i)));
    expect(rows.map(([row]) => row!.n)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(counted.writes - before).toBe(1);
  });

  test("when queries are sent in different turns while others run, then each turn's go to the least busy connection", async () => {
    const sql = lanes(3);
    const pids: Promise<number>[] = [];
    for (let i = 0; i < 3; i++) {
      pids.push(sql<{ pid: number }[]>`select pg_backend_pid() as pid, pg_sleep(0.1)`.then((rows) => rows[0]!.pid));
      await nextTurn();
    }
    expect(new Set(await Promise.all(pids)).size).toBe(3);
  });

  test("when a transaction begins on the connection of the turn, then the turn's later queries go to another and do not wait for it", async () => {
    const sql = lanes(2);
    // Two on the first connection; then the turn's connection is the second, and it is also the least busy when the transaction begins.
    const busy = Promise.all([1, 2].map(() => sql`select pg_sleep(0.1)`));
    await nextTurn();
    const first = sql<{ pid: number }[]>`select pg_backend_pid() as pid`.then((rows) => rows[0]!.pid);
    await sentByTheDriver();
    let committed = false;
    const transaction = sql.begin(async (tx) => {
      await tx`select pg_sleep(0.5)`;
      committed = true;
    });
    const later = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
    expect(committed).toBe(false);
    expect(later[0]!.pid).not.toBe(await first);
    await Promise.all([busy, transaction]);
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
    // A fragment that was never sent leaves its lane free: two queries of two turns still take both connections.
    const one = sql<{ pid: number }[]>`select pg_backend_pid() as pid, pg_sleep(0.05)`.execute();
    await nextTurn();
    const two = sql<{ pid: number }[]>`select pg_backend_pid() as pid, pg_sleep(0.05)`;
    const pids = await Promise.all([one, two]);
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
    const sleeping: Promise<unknown>[] = [];
    for (let i = 0; i < 3; i++) {
      sleeping.push(sql`select pg_sleep(0.05)`.execute());
      await nextTurn();
    }
    await Promise.all(sleeping);
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

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { apiClient, type Call } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";
import { canRunThrowawayPostgres, throwawayPostgres, type ThrowawayPostgres } from "../../harness/throwaway-postgres";
import { countByStatus, createAndUpdate, findBrokenPromises, noteCommittedWrites, percentile, sleep, type WriteRecord } from "./helpers";

/**
 * Creates and updates while PostgreSQL is restarted or a table is locked past
 * the gateway's timeout. Whatever the fault, a request answered with a failure
 * status never takes effect, and no acknowledged update is overwritten by a
 * request sent before it. Runs on a PostgreSQL cluster of its own.
 */
const UPSTREAM_TIMEOUT_MS = 1500;

let database: ThrowawayPostgres | undefined;
let system: TestSystem | undefined;
let call: Call;

function summary(label: string, records: WriteRecord[]) {
  const byKind = (kind: WriteRecord["kind"]) => JSON.stringify(countByStatus(records.filter((r) => r.kind === kind)));
  return `${label}: ${records.length} requests; creates ${byKind("create")}, updates ${byKind("update")}`;
}

async function expectNoBrokenPromises(records: WriteRecord[]) {
  const broken = await findBrokenPromises(system!.databaseUrl!, records);
  expect(broken.failedButTookEffect).toEqual([]);
  expect(broken.acknowledgedButMissing).toEqual([]);
  expect(broken.overwritten).toEqual([]);
  expect(broken.writesThatTookEffect).toBeGreaterThan(0);
}

describe.skipIf(!canRunThrowawayPostgres)("PostgreSQL faults during creates and updates", () => {
  beforeAll(async () => {
    database = await throwawayPostgres();
    system = await startSystem({
      databaseServerUrl: database.url,
      withoutRedis: true,
      env: { DB_POOL_MAX: "4" },
      gatewayEnv: { UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) },
    });
    await noteCommittedWrites(system.databaseUrl!);
    call = apiClient(system.baseUrl, await (await seedTenant(system)).key({ rate_limit_per_minute: 1_000_000 }));
  });
  afterAll(async () => {
    await system?.stop();
    await database?.dispose();
  });

  test("when the pages table is locked past the gateway's timeout, then requests answered with a failure never take effect and no acknowledged update is overwritten", async () => {
    let done = false;
    const load = createAndUpdate(call, { workers: 6, stop: () => done });
    await sleep(1000);
    const locker = postgres(system!.databaseUrl!, { max: 1, onnotice: () => {} });
    const lockedAt = Date.now();
    await locker.begin(async (tx) => {
      await tx`lock table pages in access exclusive mode`;
      await sleep(3 * UPSTREAM_TIMEOUT_MS);
    });
    const releasedAt = Date.now();
    await locker.end();
    await sleep(1500);
    done = true;
    const records = await load;
    const duringLock = records.filter((r) => r.startedAt >= lockedAt && r.startedAt < releasedAt);
    const after = records.filter((r) => r.startedAt >= releasedAt + 500);
    console.log(summary("table lock", records));
    console.log(`table lock: during the lock ${JSON.stringify(countByStatus(duringLock))}, after it ${JSON.stringify(countByStatus(after))}`);

    expect(duringLock.filter((r) => r.status === 503).length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    await expectNoBrokenPromises(records);
  });

  test("when PostgreSQL restarts, then requests fail fast with 503 while it is down, those answered with a failure never take effect, and no acknowledged update is overwritten", async () => {
    let done = false;
    const load = createAndUpdate(call, { workers: 6, stop: () => done });
    await sleep(1000);
    await database!.stop();
    const downAt = Date.now();
    await sleep(3000);
    const upAt = Date.now();
    await database!.start();
    const startedAt = Date.now();
    // Until every process's probe has seen PostgreSQL again (half a second apart), then a while of normal service.
    await sleep(3000);
    done = true;
    const records = await load;
    const whileDown = records.filter((r) => r.startedAt >= downAt && r.startedAt < upAt);
    const after = records.filter((r) => r.startedAt >= startedAt + 1500);
    console.log(summary("postgres restart", records));
    console.log(
      `postgres restart: while down ${JSON.stringify(countByStatus(whileDown))}, latency p50 ${Math.round(percentile(whileDown.map((r) => r.ms), 50))} ms, max ${Math.round(Math.max(...whileDown.map((r) => r.ms)))} ms; after ${JSON.stringify(countByStatus(after))}`,
    );

    expect(whileDown.length).toBeGreaterThan(0);
    expect(whileDown.every((r) => r.status === 503)).toBe(true);
    expect(Math.max(...whileDown.map((r) => r.ms))).toBeLessThan(1000);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    await expectNoBrokenPromises(records);
  });

  test("when every connection to PostgreSQL is terminated again and again under load, then every process serves every request again within 5 s of the last", async () => {
    const admin = postgres(database!.url, { max: 1, onnotice: () => {} });
    let done = false;
    const load = createAndUpdate(call, { workers: 6, stop: () => done });
    try {
      for (let round = 0; round < 8; round++) {
        await sleep(150 + 50 * (round % 3));
        await admin`select pg_terminate_backend(pid) from pg_stat_activity where pid <> pg_backend_pid() and backend_type = 'client backend'`;
      }
      const lastAt = Date.now();
      await sleep(5000);
      const servedFrom = Date.now();
      await sleep(1500);
      done = true;
      const records = await load;
      const after = records.filter((r) => r.startedAt >= servedFrom);
      console.log(`${summary("backends terminated", records)}; from 5 s after the last: ${JSON.stringify(countByStatus(after))} (${servedFrom - lastAt} ms)`);
      expect(after.length).toBeGreaterThan(0);
      expect(countByStatus(after)).toEqual(countByStatus(after.filter((r) => r.status === 200 || r.status === 201)));
      await expectNoBrokenPromises(records);
    } finally {
      done = true;
      await load;
      await admin.end();
    }
  }, 60_000);

  test("when another client holds every PostgreSQL connection and the processes' own are terminated, then requests fail fast with 503, and once the connections are given back every request is served within 5 s", async () => {
    const admin = postgres(database!.url, { max: 1, onnotice: () => {}, connection: { application_name: "fault-admin" } });
    // Without the driver's own first query (array types), whose failure it leaves unhandled when the hog is ended mid-connect.
    const hog = postgres(database!.url, { max: 500, fetch_types: false, onnotice: () => {}, connection: { application_name: "fault-hog" } });
    let done = false;
    const load = createAndUpdate(call, { workers: 6, stop: () => done });
    try {
      await admin`select 1`;
      await sleep(500);
      // Every connection the server has left (superuser slots too), until it refuses more.
      const held = await Promise.allSettled(Array.from({ length: 500 }, () => hog.reserve()));
      expect(held.some((attempt) => attempt.status === "rejected")).toBe(true);
      // The processes reconnect at once and can win the slots their terminated
      // connections freed: terminate and fill again until none of theirs is left.
      let theirs = Infinity;
      for (let round = 0; round < 20 && theirs > 0; round++) {
        await admin`select pg_terminate_backend(pid) from pg_stat_activity where pid <> pg_backend_pid() and backend_type = 'client backend' and application_name not in ('fault-admin', 'fault-hog')`;
        held.push(...(await Promise.allSettled(Array.from({ length: 50 }, () => hog.reserve()))));
        [{ theirs }] = await admin`select count(*)::int as theirs from pg_stat_activity where pid <> pg_backend_pid() and backend_type = 'client backend' and application_name not in ('fault-admin', 'fault-hog')`;
      }
      expect(theirs).toBe(0);
      const exhaustedAt = Date.now();
      await sleep(2000);
      const givenBackAt = Date.now();
      for (const attempt of held) if (attempt.status === "fulfilled") attempt.value.release();
      await hog.end({ timeout: 1 });
      await sleep(5000);
      const servedFrom = Date.now();
      await sleep(1500);
      done = true;
      const records = await load;
      const whileHeld = records.filter((r) => r.startedAt >= exhaustedAt + 500 && r.startedAt < givenBackAt);
      const after = records.filter((r) => r.startedAt >= servedFrom);
      console.log(`${summary("connections held", records)}; while held ${JSON.stringify(countByStatus(whileHeld))}, max ${Math.round(Math.max(...whileHeld.map((r) => r.ms)))} ms; 5 s after ${JSON.stringify(countByStatus(after))}`);
      expect(whileHeld.length).toBeGreaterThan(0);
      expect(whileHeld.every((r) => r.status === 503)).toBe(true);
      expect(after.length).toBeGreaterThan(0);
      expect(after.every((r) => r.status === 200 || r.status === 201)).toBe(true);
      await expectNoBrokenPromises(records);
    } finally {
      done = true;
      await load;
      await hog.end({ timeout: 1 }).catch(() => {});
      await admin.end();
    }
  }, 60_000);
});

/**
 * `bun bench/profile/neighbour.ts`: what one workspace flooding a service with
 * its most expensive reads does to another workspace's ordinary requests.
 *
 * The real system on real PostgreSQL and Redis. Workspace A has 100,000 pages
 * (PAGES) and FLOOD (40) callers listing them with a title filter that
 * matches a tenth (an exact `total` over 10,000 rows each time); workspace B
 * reads one of its pages, one request after another, for SECONDS (15). B's
 * latency is printed quiet (A idle) and under the flood, with A's rate. The
 * services decide how A's work and B's share the database connections
 * (shared/src/db/connection-lanes.ts, shared/src/service/boot-service.ts).
 */
import postgres from "postgres";
import { percentile } from "../load";
import { growPages } from "../scale";
import { startSystem } from "../../tests/harness/system";
import { seedTenant } from "../../tests/harness/tenant";

process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/test";
process.env.REDIS_URL ??= "redis://127.0.0.1:6379";
const PAGES = Number(process.env.PAGES ?? 100_000);
const FLOOD = Number(process.env.FLOOD ?? 40);
const SECONDS = Number(process.env.SECONDS ?? 15);

const ms = (value: number) => value.toFixed(1);

const system = await startSystem();
try {
  const limit = { rate_limit_per_minute: 1_000_000 };
  const [a, b] = [await seedTenant(system), await seedTenant(system)];
  const [keyA, keyB] = [await a.key(limit), await b.key(limit)];
  const sql = postgres(system.databaseUrl!, { max: 1, onnotice: () => {} });
  await growPages(sql, a.workspaceId, 0, PAGES);
  await sql.end();
  const created = await fetch(`${system.baseUrl}/v1/new-page`, {
    method: "POST",
    headers: { authorization: `Bearer ${keyB}`, "content-type": "application/json" },
    body: JSON.stringify({ title: "B's page", content: "Read over and over." }),
  });
  const pageB = `${system.baseUrl}/v1/new-page/${((await created.json()) as { id: string }).id}`;

  const readsOfB = async (seconds: number) => {
    const latencies: number[] = [];
    let failures = 0;
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until) {
      const started = performance.now();
      const answer = await fetch(pageB, { headers: { authorization: `Bearer ${keyB}` } });
      await answer.arrayBuffer();
      if (answer.status === 200) latencies.push(performance.now() - started);
      else failures++;
    }
    latencies.sort((x, y) => x - y);
    return `B: ${latencies.length} reads, p50 ${ms(percentile(latencies, 50))} ms, p99 ${ms(percentile(latencies, 99))} ms, p99.9 ${ms(percentile(latencies, 99.9))} ms, max ${ms(latencies.at(-1) ?? 0)} ms, failed ${failures}`;
  };

  console.log(`quiet:        ${await readsOfB(SECONDS / 3)}`);
  let flooding = true;
  let listsOfA = 0;
  const statusesOfA = new Map<number, number>();
  const flood = Promise.all(
    Array.from({ length: FLOOD }, async () => {
      while (flooding) {
        const answer = await fetch(`${system.baseUrl}/v1/new-page?title=roadmap`, { headers: { authorization: `Bearer ${keyA}` } });
        await answer.arrayBuffer();
        statusesOfA.set(answer.status, (statusesOfA.get(answer.status) ?? 0) + 1);
        listsOfA++;
      }
    }),
  );
  await Bun.sleep(1000);
  const startedLists = listsOfA;
  const underFlood = await readsOfB(SECONDS);
  const rateOfA = (listsOfA - startedLists) / SECONDS;
  flooding = false;
  await flood;
  console.log(`under flood:  ${underFlood}; A: ${rateOfA.toFixed(0)} lists/s (${FLOOD} callers), answers ${JSON.stringify(Object.fromEntries(statusesOfA))}`);
} finally {
  await system.stop();
}
process.exit(0);

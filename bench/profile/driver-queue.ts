/**
 * `bun bench/profile/driver-queue.ts`: why the services' database pools are
 * lanes of one connection (shared/src/db/connection-lanes.ts) rather than the
 * `postgres` driver's own pool, which pipelines too but slows down with every
 * query under sustained load.
 *
 * POOL (10) connections, IN_FLIGHT (50) callers each running the primary-key
 * select of the pages service one after another, for SECONDS (40); queries per
 * second printed every 5 s, for three shapes: the driver's pool alone, the
 * same pool behind a gate of POOL (no pipelining: what the services did
 * before the lanes), and POOL lanes.
 *
 * The driver (3.4.9) keeps its busy connections in a queue whose `shift` leaves
 * a hole at the front of its array and resets it only when the queue is empty;
 * `remove` (run every time a connection changes state) searches the whole array
 * with indexOf. Past the pool, a query goes to a busy connection taken with
 * `shift` and pushed back, so under steady load the array only grows and every
 * query costs more than the last: the throughput decays within a minute. A
 * lane's queue holds one connection and empties on every `shift`.
 */
import postgres from "postgres";
import { concurrencyGate, connectionLanes } from "@ws/shared";
import { seedPageRow } from "./page-row";
import { testStorage } from "../../tests/harness/database";

process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/test";
const POOL = Number(process.env.POOL ?? 10);
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 50);
const SECONDS = Number(process.env.SECONDS ?? 40);
const EVERY = 5;

const storage = await testStorage();
const setup = postgres(storage.databaseUrl!, { max: 1, onnotice: () => {} });
try {
  const { workspaceId, pageId } = await seedPageRow(setup);

  for (const shape of ["driver alone", `gate of ${POOL} in front`, `${POOL} lanes`] as const) {
    const open = (max: number) => postgres(storage.databaseUrl!, { max, onnotice: () => {} });
    const sql = shape.endsWith("lanes") ? connectionLanes(() => open(1), POOL) : open(POOL);
    const admit = concurrencyGate(POOL);
    const select = () => sql`select id, title from pages where workspace_id = ${workspaceId} and id = ${pageId}`;
    const query = shape.startsWith("gate") ? () => admit(select) : select;
    let done = 0;
    const until = performance.now() + SECONDS * 1000;
    const figures: number[] = [];
    let last = 0;
    const sampler = setInterval(() => {
      figures.push(Math.round((done - last) / EVERY));
      last = done;
    }, EVERY * 1000);
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (performance.now() < until) {
          await query();
          done++;
        }
      }),
    );
    clearInterval(sampler);
    await sql.end({ timeout: 1 });
    const first = figures[0] ?? 0;
    const lastFigure = figures.at(-1) ?? 0;
    console.log(
      shape.padEnd(18),
      `queries/s every ${EVERY} s: ${figures.join(", ")}  (last / first ${first ? (lastFigure / first).toFixed(2) : "?"})`,
    );
  }
} finally {
  await setup.end();
  await storage.dispose();
}
process.exit(0);

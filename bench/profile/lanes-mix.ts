/**
 * `bun bench/profile/lanes-mix.ts`: what sending a turn's queries on one lane
 * (the shared package's connection lanes) does to quick queries that share the pool
 * with slow ones. Ten lanes on real PostgreSQL; 40 callers run a point query
 * one after another, and SLOW (2) callers a 50 ms query, for SECONDS (4) per
 * run; each run once with a lead of 0 (every query to the least busy lane, the
 * lanes before 2026-11-29) and once with the default lead, ROUNDS (2) times.
 * Prints the point queries' rate, latency and this process's CPU per query.
 */
import postgres from "postgres";
import { connectionLanes, CONNECTION_PIPELINE_DEPTH } from "@ws/shared";
import { percentile } from "../load";

const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const SECONDS = Number(process.env.SECONDS ?? 4);
const SLOW = Number(process.env.SLOW ?? 2);
const ROUNDS = Number(process.env.ROUNDS ?? 2);

async function run(maxLead: number, slowCallers: number) {
  const sql = connectionLanes(() => postgres(url, { max: 1, onnotice: () => {} }), 10, { maxLead });
  await Promise.all(Array.from({ length: 10 }, () => sql`select 1`));
  const times: number[] = [];
  const end = performance.now() + SECONDS * 1000;
  const cpu = process.cpuUsage();
  const point = async () => {
    while (performance.now() < end) {
      const started = performance.now();
      await sql`select ${1}::int as n, now()`;
      times.push(performance.now() - started);
    }
  };
  const slow = async () => {
    while (performance.now() < end) await sql`select pg_sleep(0.05)`;
  };
  await Promise.all([...Array.from({ length: 40 }, point), ...Array.from({ length: slowCallers }, slow)]);
  const used = process.cpuUsage(cpu);
  await sql.end();
  times.sort((a, b) => a - b);
  const ms = (p: number) => percentile(times, p).toFixed(2);
  console.log(
    `lead ${maxLead}, ${slowCallers} slow callers: ${Math.round(times.length / SECONDS)} point queries/s, p50 ${ms(50)} p99 ${ms(99)} p99.9 ${ms(99.9)} max ${(times.at(-1) ?? 0).toFixed(2)} ms, CPU ${((used.user + used.system) / times.length).toFixed(1)} µs a query`,
  );
}

for (let round = 0; round < ROUNDS; round++) for (const slowCallers of [0, SLOW]) for (const lead of [0, CONNECTION_PIPELINE_DEPTH]) await run(lead, slowCallers);

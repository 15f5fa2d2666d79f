/**
 * `bun bench/profile/lease-bands.ts`: what the bands of a key's leases cost
 * and buy (gateway/src/ratelimit/README.md, "Leases of the quota"). Three
 * rate limiters (as three gateway replicas) on one Redis, ten callers each,
 * one key limited to LIMIT (60,000) a minute; each caller asks for a decision,
 * then waits PACE ms (10; 0 = one turn of the event loop) before its next, for
 * REQUESTS (18,000) decisions in all. Prints the share decided from leases, the
 * waits for other replicas' leases, the decision latency (p50, p99, p99.9,
 * max) and the widest gap between an admitted request's Remaining and the
 * truth it could have reported (the limit less the admissions so far).
 * Needs REDIS_URL.
 */
import { Redis } from "ioredis";
import { createRedisLimiter, untilDecided, type RedisLimiter } from "../../gateway/src/ratelimit/redis-limiter";
import { percentile } from "../load";

const LIMIT = Number(process.env.LIMIT ?? 60_000);
const REQUESTS = Number(process.env.REQUESTS ?? 18_000);
const PACE = Number(process.env.PACE ?? 10);
const CALLERS_PER_REPLICA = 10;

const clients = [0, 1, 2].map(() => new Redis(process.env.REDIS_URL!));
const replicas = clients.map((redis) => createRedisLimiter(redis, { suspendAfterMultiple: 2, suspendSeconds: 60 }));
const key = { id: "key_1", workspaceId: `ws_bench_${process.pid}_${Date.now()}`, limit: LIMIT };
const pause = () => new Promise((resolve) => (PACE > 0 ? setTimeout(resolve, PACE) : setImmediate(resolve)));

let sent = 0;
let leased = 0;
let waits = 0;
let admitted = 0;
let widestGap = 0;
const latencies: number[] = [];
const caller = async (limiter: RedisLimiter) => {
  while (sent < REQUESTS) {
    sent++;
    const started = performance.now();
    let decision = limiter.leased(key);
    if (decision) leased++;
    else
      decision = await untilDecided(async (force) => {
        const result = await limiter.attempt(key, undefined, force);
        if ("waitMs" in result) waits++;
        return result;
      });
    latencies.push(performance.now() - started);
    if (decision.outcome === "allowed") {
      admitted++;
      widestGap = Math.max(widestGap, LIMIT - admitted - decision.remaining);
    }
    await pause();
  }
};

const started = performance.now();
await Promise.all(replicas.flatMap((limiter) => Array.from({ length: CALLERS_PER_REPLICA }, () => caller(limiter))));
const ms = Math.round(performance.now() - started);
latencies.sort((a, b) => a - b);
const at = (p: number) => percentile(latencies, p).toFixed(2);
console.log(
  `limit ${LIMIT}, ${REQUESTS} decisions in ${ms} ms (${Math.round((REQUESTS * 1000) / ms)} a second): ` +
    `${((100 * leased) / REQUESTS).toFixed(1)} % from leases, ${waits} waits for other replicas' leases, ` +
    `latency p50 ${at(50)} p99 ${at(99)} p99.9 ${at(99.9)} max ${at(100)} ms, widest gap below the truth ${widestGap}`,
);
await Promise.all(replicas.map((limiter) => limiter.close()));
for (const client of clients) client.disconnect();

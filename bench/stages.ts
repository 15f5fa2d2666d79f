/**
 * `bun bench/stages.ts`: the gateway pipeline's stages in isolation, in one
 * process, so the cost of each is visible apart from the others. A profiling
 * aid for bench/README.md, not part of `npm run bench`.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { Elysia } from "elysia";
import { fetchUpstream, signPrincipal, signingKeyFrom, toResponse, type Principal, type SendUpstream } from "@ws/shared";
import { bunRuntime } from "@ws/shared/runtime/bun";
import { extractKey } from "../gateway/src/auth/extract-credential";
import { generateKey, hashKey, isWellFormedKey } from "../gateway/src/keys/key-format";
import { createRedisLimiter } from "../gateway/src/ratelimit/redis-limiter";
import { forward } from "../gateway/src/proxy/forward";

const ITERATIONS = 20_000;

async function measure(name: string, operation: () => unknown, iterations = ITERATIONS) {
  for (let i = 0; i < 500; i++) await operation();
  const started = performance.now();
  for (let i = 0; i < iterations; i++) await operation();
  const micros = ((performance.now() - started) * 1000) / iterations;
  console.log(`${name.padEnd(58)} ${micros.toFixed(1).padStart(8)} µs/op`);
}

/** Many operations in flight at once, as under load: µs of this process per operation. */
async function measureConcurrent(name: string, operation: () => Promise<unknown>, inFlight = 50, iterations = ITERATIONS) {
  const run = async (count: number) => {
    let next = 0;
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (next++ < count) await operation();
    }));
  };
  await run(1000);
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run(iterations);
  const elapsed = performance.now() - started;
  const used = process.cpuUsage(cpu);
  console.log(
    `${name.padEnd(58)} ${((elapsed * 1000) / iterations).toFixed(1).padStart(8)} µs/op wall, ${((used.user + used.system) / iterations).toFixed(1)} µs/op CPU here`,
  );
}

const key = generateKey("wsk").key;
const headers = new Headers({ authorization: `Bearer ${key}`, accept: "*/*", "user-agent": "bench" });
const principal: Principal = {
  workspace_id: randomUUID(), member_id: randomUUID(), key_id: randomUUID(),
  scopes: ["docs:read", "docs:create", "docs:update", "docs:delete", "calendar:read"], target_team_ids: null, visible_team_ids: [], request_id: randomUUID(),
};
const signingKey = signingKeyFrom("x".repeat(43));

await measure("extractKey + isWellFormedKey + hashKey", () => {
  const presented = extractKey(headers);
  isWellFormedKey(presented, "wsk");
  return hashKey(presented).toString("hex");
});
await measure("signPrincipal (node:crypto HMAC)", () => signPrincipal(principal, { method: "GET", path: "/v1/new-page/x" }, signingKey));
await measure("new URL + crypto.randomUUID", () => new URL("http://127.0.0.1:8080/v1/new-page/abc").pathname + crypto.randomUUID());

const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { lazyConnect: false, maxRetriesPerRequest: 1 });
const limiter = createRedisLimiter(redis, { suspendAfterMultiple: 2, suspendSeconds: 300 });
const limited = { id: randomUUID(), workspaceId: randomUUID(), limit: 100_000_000 };
await measure("Redis limiter hit, one at a time (round trip)", () => limiter.hit(limited), 5000);
await measureConcurrent("Redis limiter hit, 50 in flight on one key (batched into shared script calls)", () => limiter.hit(limited));
redis.disconnect();

const upstream = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json({ ok: true }) });
const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
await measureConcurrent("plain fetch to a local upstream, 50 in flight", async () => (await fetch(`${upstreamUrl}/v1/new-page/x`)).arrayBuffer(), 50, 10_000);
const forwardWith = (send: SendUpstream) => async () => {
  const response = await forward({ send, upstream: upstreamUrl, method: "GET", pathAndQuery: "/v1/new-page/x", headers, body: null, principalToken: "t".repeat(600), requestId: randomUUID(), timeoutMs: 10_000 });
  return toResponse(response).arrayBuffer();
};
// Interleaved: on a shared machine the CPU a request costs drifts between runs.
for (let round = 0; round < 3; round++) {
  await measureConcurrent("forward() over fetch to a local upstream, 50 in flight", forwardWith(fetchUpstream), 50, 10_000);
  await measureConcurrent("forward() over Bun's HTTP/1.1 client (the gateway's), 50 in flight", forwardWith(bunRuntime.sendUpstream), 50, 10_000);
}
upstream.stop(true);

const app = new Elysia().all("/*", () => new Response("ok"));
const request = () => new Request("http://127.0.0.1:8080/v1/new-page/x", { headers });
await measure("Request + Elysia .all('/*') dispatch", () => app.handle(request()));
await measure("Request alone", () => request());
process.exit(0);

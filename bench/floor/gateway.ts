/**
 * The floor's gateway: an Elysia app that makes one ioredis pipeline call
 * (INCR + EXPIRE of a per-minute counter) per request and proxies with `fetch`
 * to the floor's service. No key check, no principal, no logging: what the
 * gateway's shape costs with nothing of its own on top.
 */
import { Elysia } from "elysia";
import { Redis } from "ioredis";

const redis = new Redis(process.env.REDIS_URL!);
const upstream = process.env.PAGES_URL!;

const app = new Elysia().get("/v1/new-page/:id", async ({ params }) => {
  const counter = `bench-floor:${process.pid}:${Math.floor(Date.now() / 60_000)}`;
  await redis.pipeline().incr(counter).expire(counter, 120).exec();
  const response = await fetch(`${upstream}/v1/new-page/${params.id}`);
  return new Response(response.body, { status: response.status, headers: response.headers });
});
app.listen({ port: Number(process.env.PORT), hostname: "127.0.0.1" });

process.on("SIGTERM", async () => {
  await app.stop();
  redis.disconnect();
  process.exit(0);
});

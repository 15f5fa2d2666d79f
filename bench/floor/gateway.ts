/**
 * The floor's gateway: an Elysia app that makes one ioredis pipeline call
 * (INCR + EXPIRE of a per-minute counter) per request and proxies with `fetch`
 * to the floor's service. No key check, no principal, no logging: what the
 * gateway's shape costs with nothing of its own on top.
 *
 * In the ladder section it stands in front of the real pages service instead,
 * which answers only a signed principal: given PRINCIPAL (its JSON) and
 * INTERNAL_SIGNING_KEY, it sends one token per path, signed again every 20 s
 * (a token lives 60 s), so signing stays out of its cost per request.
 */
import { Elysia } from "elysia";
import { Redis } from "ioredis";
// The principal module alone: the floor loads nothing else of ours.
import { PRINCIPAL_HEADER, signPrincipal, signingKeyFrom } from "@ws/shared/src/principal/internal-token.ts";
import type { Principal } from "@ws/shared/src/principal/principal.ts";

const redis = new Redis(process.env.REDIS_URL!);
const upstream = process.env.PAGES_URL!;

const principal = process.env.PRINCIPAL ? (JSON.parse(process.env.PRINCIPAL) as Principal) : undefined;
const signingKey = process.env.INTERNAL_SIGNING_KEY ? signingKeyFrom(process.env.INTERNAL_SIGNING_KEY) : undefined;
const tokens = new Map<string, { token: string; signedAt: number }>();
/** Absent unless configured: the floor itself fetches exactly as before. */
const principalHeaders =
  principal && signingKey
    ? (path: string): RequestInit => {
        let signed = tokens.get(path);
        if (!signed || Date.now() - signed.signedAt > 20_000) {
          signed = { token: signPrincipal(principal, { method: "GET", path }, signingKey), signedAt: Date.now() };
          tokens.set(path, signed);
        }
        return { headers: { [PRINCIPAL_HEADER]: signed.token } };
      }
    : undefined;

const app = new Elysia().get("/v1/new-page/:id", async ({ params }) => {
  const counter = `bench-floor:${process.pid}:${Math.floor(Date.now() / 60_000)}`;
  await redis.pipeline().incr(counter).expire(counter, 120).exec();
  const path = `/v1/new-page/${params.id}`;
  const response = await fetch(upstream + path, principalHeaders?.(path));
  return new Response(response.body, { status: response.status, headers: response.headers });
});
app.listen({ port: Number(process.env.PORT), hostname: "127.0.0.1" });

process.on("SIGTERM", async () => {
  await app.stop();
  redis.disconnect();
  process.exit(0);
});

/**
 * `bun bench/profile/candidates.ts`: what the changes in bench/README.md's
 * "Plan for the request path" would save, each measured against what runs
 * today, one at a time in one process. The "candidate" versions are sketches
 * for the measurement, not the code that will ship. Two have landed since: the
 * services' principal check (compared here with jose's `jwtVerify`, what ran
 * before) and the key checksum in plain numbers (its sketch still measured).
 */
import { jwtVerify } from "jose";
import { randomUUID } from "node:crypto";
import { signPrincipal, signingKeyFrom, toResponse, verifyPrincipal, PRINCIPAL_HEADER, REQUEST_ID_HEADER, type Principal } from "@ws/shared";
import { bunRuntime } from "@ws/shared/runtime/bun";
import { generateKey, isWellFormedKey } from "../../gateway/src/keys/key-format";
import { forward } from "../../gateway/src/proxy/forward";

const ITERATIONS = Number(process.env.ITERATIONS ?? 20_000);

/** µs of CPU per operation in this process (many in flight, as under load). */
async function cpuPerOperation(name: string, operation: () => unknown, inFlight = 1, iterations = ITERATIONS) {
  const run = async (count: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next++ < count) await operation();
      }),
    );
  };
  await run(Math.min(2000, iterations));
  const cpu = process.cpuUsage();
  await run(iterations);
  const used = process.cpuUsage(cpu);
  const micros = (used.user + used.system) / iterations;
  console.log(`${name.padEnd(72)} ${micros.toFixed(2).padStart(8)} µs CPU/op`);
  return micros;
}

// --- The services' principal check: jose (WebCrypto, async), as before, against verifyPrincipal (node:crypto's HMAC) now.
const key = signingKeyFrom("k".repeat(43));
const principal: Principal = {
  workspace_id: randomUUID(), member_id: randomUUID(), key_id: randomUUID(),
  scopes: ["docs:read", "docs:create", "docs:update", "docs:delete", "calendar:read"], target_team_ids: null, visible_team_ids: [], request_id: randomUUID(),
};
const request = { method: "GET", path: "/v1/new-page/0190d6a0-0000-7000-8000-000000000000" };
const token = signPrincipal(principal, request, key);
const withJose = () => jwtVerify(token, key, { issuer: "workspace-gateway", audience: "workspace-services", algorithms: ["HS256"], requiredClaims: ["iat", "exp"] });
if ((await withJose()).payload.key_id !== (await verifyPrincipal(token, request, key)).key_id) throw new Error("jose and verifyPrincipal disagree");

console.log("services: principal check per request");
await cpuPerOperation("jose jwtVerify (before)", withJose, 50);
await cpuPerOperation("verifyPrincipal: node:crypto HMAC + timingSafeEqual + JSON.parse (now)", () => verifyPrincipal(token, request, key), 50);

// --- The gateway's key shape check: BigInt base62 checksum against plain numbers.
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BASE62_CODES = new Uint8Array(128).fill(255);
for (let i = 0; i < BASE62.length; i++) BASE62_CODES[BASE62.charCodeAt(i)] = i;
const CRC = Int32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});
/** Candidate: the same answer as isWellFormedKey, with numbers instead of BigInt and no TextEncoder. */
function wellFormedCandidate(presented: string, prefix: string): boolean {
  if (presented.length !== prefix.length + 1 + 33 + 6 || !presented.startsWith(`${prefix}_`)) return false;
  let crc = -1;
  const end = presented.length - 6;
  for (let i = 0; i < presented.length; i++) {
    const code = presented.charCodeAt(i);
    if (i > prefix.length && (code > 127 || BASE62_CODES[code] === 255)) return false;
    if (i < end) crc = CRC[(crc ^ code) & 0xff]! ^ (crc >>> 8);
  }
  let value = (crc ^ -1) >>> 0;
  for (let i = presented.length - 1; i >= end; i--) {
    if (BASE62_CODES[presented.charCodeAt(i)] !== value % 62) return false;
    value = Math.floor(value / 62);
  }
  return value === 0;
}
const apiKey = generateKey("wsk").key;
const broken = apiKey.slice(0, -1) + (apiKey.endsWith("A") ? "B" : "A");
if (!wellFormedCandidate(apiKey, "wsk") || wellFormedCandidate(broken, "wsk") !== isWellFormedKey(broken, "wsk")) throw new Error("the candidate disagrees");
console.log("gateway: key shape and checksum per request");
await cpuPerOperation("isWellFormedKey: numbers since this round (BigInt before)", () => isWellFormedKey(apiKey, "wsk"));
await cpuPerOperation("candidate: numbers, one pass", () => wellFormedCandidate(apiKey, "wsk"));

// --- forward(): copies of the headers both ways against a leaner hop.
const upstream = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json({ id: "x", title: "Bench page", content: "" }) });
const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
const incoming = new Headers({ authorization: `Bearer ${apiKey}`, accept: "*/*", "user-agent": "bench", host: "127.0.0.1:8080" });
const DROP = new Set(["authorization", "x-api-key", "cookie", "host", "connection", "keep-alive", "proxy-authorization", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "content-length", PRINCIPAL_HEADER, REQUEST_ID_HEADER]);
const DROP_BACK = ["connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"];
/** Candidate: headers as a plain object, and the upstream response's own headers edited in place (Bun allows it; Deno's are immutable, so Deno keeps the copy). */
async function leanForward(pathAndQuery: string, headers: Headers, principalToken: string, requestId: string): Promise<Response> {
  const out: Record<string, string> = { [PRINCIPAL_HEADER]: principalToken, [REQUEST_ID_HEADER]: requestId };
  headers.forEach((value, name) => {
    if (!DROP.has(name)) out[name] = value;
  });
  const response = await fetch(upstreamUrl + pathAndQuery, { headers: out, redirect: "manual", signal: AbortSignal.timeout(10_000) });
  for (const name of DROP_BACK) response.headers.delete(name);
  return response;
}
console.log("gateway: the hop to the service (50 in flight; includes the upstream's own CPU, the same in both)");
const principalToken = signPrincipal(principal, request, key);
await cpuPerOperation("plain fetch, no header work", async () => (await fetch(`${upstreamUrl}/v1/new-page/x`)).arrayBuffer(), 50, 10_000);
const sameHeaders = { accept: "*/*", "user-agent": "bench", [PRINCIPAL_HEADER]: principalToken, [REQUEST_ID_HEADER]: randomUUID() };
await cpuPerOperation("plain fetch with the same headers as forward() sends", async () => (await fetch(`${upstreamUrl}/v1/new-page/x`, { headers: sameHeaders })).arrayBuffer(), 50, 10_000);
await cpuPerOperation("... and AbortSignal.timeout(10 s)", async () => (await fetch(`${upstreamUrl}/v1/new-page/x`, { headers: sameHeaders, signal: AbortSignal.timeout(10_000) })).arrayBuffer(), 50, 10_000);
await cpuPerOperation("forward() (today)", async () => {
  const response = await forward({ send: bunRuntime.sendUpstream, upstream: upstreamUrl, method: "GET", pathAndQuery: "/v1/new-page/x", headers: incoming, body: null, principalToken, requestId: randomUUID(), timeoutMs: 10_000 });
  return toResponse(response).arrayBuffer();
}, 50, 10_000);
await cpuPerOperation("candidate: lean forward", async () => (await leanForward("/v1/new-page/x", incoming, principalToken, randomUUID())).arrayBuffer(), 50, 10_000);
upstream.stop(true);

// --- new URL per request against slicing the path out of the request URL.
const url = "http://127.0.0.1:8080/v1/new-page/0190d6a0-0000-7000-8000-000000000000?per_page=1";
console.log("gateway: path and query of the request");
await cpuPerOperation("new URL(request.url) (today)", () => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
});
await cpuPerOperation("candidate: slice after the authority", () => {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const query = url.indexOf("?", start);
  return query === -1 ? url.slice(start) : url.slice(start, query);
});
process.exit(0);

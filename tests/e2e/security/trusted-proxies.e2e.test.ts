import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiClient } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { freshWindow } from "../ratelimit/helpers";
import { exitOf, newClientAddress, ownRedis, unissuedKey } from "./helpers";

/**
 * The address failed authentications are counted by: the TCP peer, or, when the
 * peer is in TRUSTED_PROXIES, the right-most address of X-Forwarded-For /
 * Forwarded that is not a trusted proxy. The tests connect from 127.0.0.1, so a
 * gateway that trusts 127.0.0.1 stands behind an ingress.
 */

const LIMIT = 3;
let redis: Awaited<ReturnType<typeof ownRedis>>;
let behindIngress: TestSystem;
let exposed: TestSystem;

beforeAll(async () => {
  redis = await ownRedis();
  const gatewayEnv = { AUTH_FAILURE_LIMIT_PER_MINUTE: String(LIMIT) };
  [behindIngress, exposed] = await Promise.all([
    startSystem({ ...redis.options, gatewayEnv: { ...gatewayEnv, TRUSTED_PROXIES: "10.0.0.0/8, 127.0.0.1/32, ::1" } }),
    startSystem({ ...redis.options, gatewayEnv }),
  ]);
}, 180_000);

afterAll(async () => {
  await Promise.all([behindIngress?.stop(), exposed?.stop()]);
  await redis?.dispose();
});

/** The statuses of `count` never-issued keys sent with these headers. */
async function failures(system: TestSystem, count: number, headers: () => Record<string, string>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await apiClient(system.baseUrl, unissuedKey())("GET", "/v1/new-page", undefined, headers())).status);
  return statuses;
}

describe("the client address behind a trusted proxy", () => {
  test("when a trusted proxy appends each client to X-Forwarded-For, then each client's failures are counted apart, and what a client wrote itself is ignored", async () => {
    await freshWindow(20);
    const [a, b] = [newClientAddress(), newClientAddress()];
    // The client sent the first hop itself; the ingress appended the address it saw.
    expect(await failures(behindIngress, LIMIT + 1, () => ({ "x-forwarded-for": `${newClientAddress()}, ${a}` }))).toEqual([401, 401, 401, 429]);
    expect(await failures(behindIngress, 1, () => ({ "x-forwarded-for": `${a}, ${b}` }))).toEqual([401]);
    expect(await failures(behindIngress, 1, () => ({ "x-forwarded-for": `${a}, 10.1.2.3` }))).toEqual([429]);
  });

  test("when a trusted proxy writes Forwarded (RFC 7239), then its for= names the client the same way", async () => {
    await freshWindow(20);
    const [c, d] = [newClientAddress(), newClientAddress()];
    expect(await failures(behindIngress, LIMIT + 1, () => ({ forwarded: `for=${c};proto=https` }))).toEqual([401, 401, 401, 429]);
    expect(await failures(behindIngress, 1, () => ({ forwarded: `for="${d}:4711"` }))).toEqual([401]);
  });

  test("when the peer is not a trusted proxy, then a spoofed X-Forwarded-For or Forwarded changes nothing: every failure counts against the peer", async () => {
    await freshWindow(20);
    const spoofed = () => ({ "x-forwarded-for": newClientAddress(), forwarded: `for=${newClientAddress()}` });
    expect(await failures(exposed, LIMIT + 2, spoofed)).toEqual([401, 401, 401, 429, 429]);
  });
});

describe("TRUSTED_PROXIES at start", () => {
  test.each(["10.0.0.0/33", "10.0.0.0/8, proxy.internal", "fd00::/129"])("when it is %p, then the gateway stops at start naming TRUSTED_PROXIES", async (value) => {
    const { code, output } = await exitOf("gateway", { TRUSTED_PROXIES: value, INTERNAL_SIGNING_KEY: "k".repeat(40) });
    expect(code).toBe(2);
    expect(output).toContain("TRUSTED_PROXIES");
  });
});

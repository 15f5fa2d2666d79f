import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { readResponse } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { freshWindow } from "../ratelimit/helpers";
import { metric, newClientAddress, ownRedis, unissuedKey } from "./helpers";

/**
 * Failed admin-token authentications on the management API are limited per
 * client address, like API keys (the address resolved through TRUSTED_PROXIES
 * the same way), counted apart from them, and exported in metrics.
 */

const LIMIT = 3;
let redis: Awaited<ReturnType<typeof ownRedis>>;
let system: TestSystem;

beforeAll(async () => {
  redis = await ownRedis();
  // The tests connect from 127.0.0.1: trusting it lets X-Forwarded-For stand for several clients.
  system = await startSystem({ ...redis.options, gatewayEnv: { AUTH_FAILURE_LIMIT_PER_MINUTE: String(LIMIT), TRUSTED_PROXIES: "127.0.0.1" } });
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await redis?.dispose();
});

/** A management call (creating a workspace) from one client address. */
async function adminCall(from: string, token: string | null) {
  const response = await fetch(`${system.adminUrl}/admin/v1/workspaces`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": from, ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ name: "throttle test" }),
  });
  return readResponse(response);
}

describe("failed admin authentications", () => {
  test("when one address sends bad or missing admin tokens past the limit, then it gets 429 with Retry-After, even with the right token, while other addresses are served", async () => {
    await freshWindow(20);
    const attacker = newClientAddress();
    const operator = newClientAddress();
    const before = {
      invalid: await metric(system.adminUrl, "admin_auth_failures_total", { outcome: "invalid_token" }),
      missing: await metric(system.adminUrl, "admin_auth_failures_total", { outcome: "missing_token" }),
      throttled: await metric(system.adminUrl, "admin_auth_failures_total", { outcome: "throttled" }),
    };

    expectError(await adminCall(attacker, "not-the-admin-token-at-all"), 401, "invalid_token");
    expectError(await adminCall(attacker, null), 401, "missing_token");
    expectError(await adminCall(attacker, `${system.adminToken}x`), 401, "invalid_token");
    const limited = await adminCall(attacker, "still-not-the-admin-token");
    expectError(limited, 429, "rate_limit_exceeded");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Were the right token let through now, a 201 among the 429s would tell a guesser it had found it.
    expectError(await adminCall(attacker, system.adminToken), 429, "rate_limit_exceeded");

    expect((await adminCall(operator, system.adminToken)).status).toBe(201);
    expectError(await adminCall(operator, "wrong-but-first-time"), 401, "invalid_token");

    expect(await metric(system.adminUrl, "admin_auth_failures_total", { outcome: "invalid_token" })).toBe(before.invalid + 3);
    expect(await metric(system.adminUrl, "admin_auth_failures_total", { outcome: "missing_token" })).toBe(before.missing + 1);
    expect(await metric(system.adminUrl, "admin_auth_failures_total", { outcome: "throttled" })).toBe(before.throttled + 2);
  });

  test("when an address is past its admin-token limit, then its API-key failures are still counted on their own", async () => {
    await freshWindow(20);
    const client = newClientAddress();
    for (let i = 0; i < LIMIT; i++) await adminCall(client, "wrong-admin-token-value");
    expectError(await adminCall(client, "wrong-admin-token-value"), 429, "rate_limit_exceeded");
    const response = await fetch(`${system.baseUrl}/v1/new-page`, { headers: { authorization: `Bearer ${unissuedKey()}`, "x-forwarded-for": client } });
    expectError(await readResponse(response), 401, "invalid_token");
  });

  test("when metrics and probes are asked for on the internal port, then no admin token is needed and nothing is counted", async () => {
    const before = await metric(system.adminUrl, "admin_auth_failures_total", { outcome: "missing_token" });
    for (const path of ["/healthz", "/readyz", "/metrics"]) expect((await fetch(`${system.adminUrl}${path}`)).status).toBe(200);
    expect(await metric(system.adminUrl, "admin_auth_failures_total", { outcome: "missing_token" })).toBe(before);
  });
});

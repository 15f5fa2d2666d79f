import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiClient } from "../../harness/http";
import type { TestSystem } from "../../harness/system";
import type { Tenant } from "../../harness/tenant";
import { freshWindow, sleep } from "../ratelimit/helpers";
import { keyLookups, ownLimitsSystem, unissuedKey } from "./helpers";

/**
 * Failed authentications from one address are limited, but a key that exists,
 * is not revoked and has not expired is admitted whatever the count of its
 * address: behind an ingress every client shares one address, and one client's
 * bad keys must not lock out the others' new keys.
 */

const LIMIT = 3;
let own: Awaited<ReturnType<typeof ownLimitsSystem>>;
let system: TestSystem;
let tenant: Tenant;

beforeAll(async () => {
  own = await ownLimitsSystem({ AUTH_FAILURE_LIMIT_PER_MINUTE: String(LIMIT) });
  ({ system, tenant } = own);
}, 180_000);

afterAll(async () => {
  await own?.stop();
});

/** Sends never-issued keys from this address (127.0.0.1) until the gateway answers 429. */
async function blockThisAddress(): Promise<void> {
  // The count is per clock minute: leave room for the test to run inside one window.
  await freshWindow(25);
  const guess = apiClient(system.baseUrl, unissuedKey());
  for (let i = 0; i <= LIMIT + 1; i++) {
    const response = await guess("GET", "/v1/new-page");
    if (response.status === 429) {
      expect(response.body.error.code).toBe("rate_limit_exceeded");
      return;
    }
    expect(response.status).toBe(401);
  }
  throw new Error("the address was never limited");
}


describe("failed-authentication limiting never refuses a valid key", () => {
  test("when a key is rotated with a grace period, then from an address past its limit both secrets work at once on every replica, neither used before", async () => {
    // None of these secrets is used before the address is blocked: the new secrets of two rotated keys, and the one a rotation replaced.
    const { id } = await tenant.keyWithId();
    const first = await tenant.admin.rotateKey(tenant.workspaceId, id, { grace_seconds: 600 });
    const { id: otherId, key: replaced } = await tenant.keyWithId();
    const rotated = await tenant.admin.rotateKey(tenant.workspaceId, otherId, { grace_seconds: 600 });
    await blockThisAddress();
    for (const url of system.baseUrls) {
      for (const secret of [first.key, replaced, rotated.key]) {
        const response = await apiClient(url, secret)("GET", "/v1/new-page");
        expect({ url, status: response.status }).toEqual({ url, status: 200 });
      }
    }
  });

  test("when an address is past its failure limit, then a key created afterwards, and one never used before, work at once on every replica", async () => {
    const earlier = await tenant.key();
    await blockThisAddress();
    expect((await apiClient(system.baseUrl, unissuedKey())("GET", "/v1/new-page")).status).toBe(429);

    const created = await tenant.key();
    for (const url of system.baseUrls) {
      expect((await apiClient(url, created)("GET", "/v1/new-page")).status).toBe(200);
      expect((await apiClient(url, earlier)("POST", "/v1/new-page", { title: "from a blocked address" })).status).toBe(201);
    }
    // Still blocked for guesses: the valid keys did not reset the count.
    expect((await apiClient(system.baseUrl, unissuedKey())("GET", "/v1/new-page")).status).toBe(429);
  });

  test("when an address is past its failure limit, then its guesses get 429 without a database look-up, however many", async () => {
    await blockThisAddress();
    const before = await keyLookups(system);
    const statuses = await Promise.all(
      Array.from({ length: 60 }, (_, i) => apiClient(system.baseUrls[i % system.baseUrls.length]!, unissuedKey())("GET", "/v1/new-page").then((r) => r.status)),
    );
    expect(new Set(statuses)).toEqual(new Set([429]));
    expect(await keyLookups(system)).toBe(before);
  });

  test("when an address is past its failure limit, then a revoked or expired key is still refused", async () => {
    const expiring = await tenant.key({ expires_at: new Date(Date.now() + 1000).toISOString() });
    const revoked = await tenant.keyWithId();
    await tenant.admin.revokeKey(tenant.workspaceId, revoked.id);
    await blockThisAddress();
    await sleep(1200);
    for (const key of [revoked.key, expiring]) {
      const response = await apiClient(system.baseUrl, key)("GET", "/v1/new-page");
      expect([401, 429]).toContain(response.status);
    }
  });
});

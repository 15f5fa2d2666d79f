import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiClient } from "../../harness/http";
import type { TestSystem } from "../../harness/system";
import type { Tenant } from "../../harness/tenant";
import { sleep } from "../ratelimit/helpers";
import { keyLookups, ownLimitsSystem, unissuedKey } from "./helpers";

/**
 * A key that exists but no longer works (revoked, expired, a secret a rotation
 * replaced, its creator deactivated), or a well-formed key no one was given,
 * is refused from memory once a replica has read it: whoever holds an old or
 * leaked key cannot make every request a database look-up, at any rate. A
 * management change that makes such a key usable again still applies on the
 * very next request at every replica.
 */

const SENDS = 30;
let own: Awaited<ReturnType<typeof ownLimitsSystem>>;
let system: TestSystem;
let tenant: Tenant;

beforeAll(async () => {
  // Failed authentications are not limited here: every refusal is a 401 that says why.
  own = await ownLimitsSystem({ AUTH_FAILURE_LIMIT_PER_MINUTE: "1000000" });
  ({ system, tenant } = own);
}, 180_000);

afterAll(async () => {
  await own?.stop();
});

const lookups = () => keyLookups(system);

/** Sends the key SENDS times to every replica; the refusals' messages, each once. */
async function refusalsOf(key: string): Promise<string[]> {
  const messages = new Set<string>();
  for (const url of system.baseUrls) {
    const call = apiClient(url, key);
    for (let i = 0; i < SENDS; i++) {
      const response = await call("GET", "/v1/new-page");
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe("invalid_token");
      messages.add(response.body.error.message);
    }
  }
  return [...messages];
}

async function expiredKey(): Promise<{ id: string; key: string }> {
  const created = await tenant.keyWithId({ expires_at: new Date(Date.now() + 1000).toISOString() });
  await sleep(1100);
  return created;
}

/** A key created by a member who is then deactivated. */
async function deactivatedCreatorsKey(): Promise<{ memberId: string; key: string }> {
  const memberId = await tenant.member("admin");
  const key = await tenant.key({ created_by: memberId });
  await tenant.admin.updateMember(tenant.workspaceId, memberId, { active: false });
  return { memberId, key };
}

describe("keys that no longer work cost no database look-up per request", () => {
  test("when a revoked key, an expired key, a rotated-out secret and a deactivated creator's key are each sent again and again to every replica, then each is refused every time with its reason and read at most once per replica", async () => {
    const revoked = await tenant.keyWithId();
    await tenant.admin.revokeKey(tenant.workspaceId, revoked.id);
    const expired = await expiredKey();
    const rotated = await tenant.keyWithId();
    await tenant.admin.rotateKey(tenant.workspaceId, rotated.id, {});
    const { key: deactivated } = await deactivatedCreatorsKey();

    const before = await lookups();
    expect(await refusalsOf(revoked.key)).toEqual(["The API key has been revoked."]);
    expect(await refusalsOf(expired.key)).toEqual(["The API key has expired."]);
    expect(await refusalsOf(rotated.key)).toEqual(["The API key has expired."]);
    expect(await refusalsOf(deactivated)).toEqual(["The API key's creator has been deactivated."]);
    expect(await lookups()).toBeLessThanOrEqual(before + 4 * system.baseUrls.length);
  });

  test("when a well-formed key no one was given is sent again and again, then it is read at most once per replica", async () => {
    const guess = unissuedKey();
    const before = await lookups();
    expect(await refusalsOf(guess)).toEqual(["The API key is not valid."]);
    expect(await lookups()).toBeLessThanOrEqual(before + system.baseUrls.length);
  });

  test("when an expired key refused at every replica is given a new expiry, then it works on the very next request at every replica", async () => {
    const { id, key } = await expiredKey();
    await refusalsOf(key);
    await tenant.admin.updateKey(tenant.workspaceId, id, { expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    for (const url of system.baseUrls) expect({ url, status: (await apiClient(url, key)("GET", "/v1/new-page")).status }).toEqual({ url, status: 200 });
  });

  test("when a deactivated creator's key refused at every replica sees its creator reactivated, then it works on the very next request at every replica", async () => {
    const { memberId, key } = await deactivatedCreatorsKey();
    await refusalsOf(key);
    await tenant.admin.updateMember(tenant.workspaceId, memberId, { active: true });
    for (const url of system.baseUrls) expect({ url, status: (await apiClient(url, key)("GET", "/v1/new-page")).status }).toEqual({ url, status: 200 });
  });
});

import { beforeAll, describe, expect, test } from "bun:test";
import { generateKey } from "../../../gateway/src/keys/key-format";
import { expectError } from "../../harness/assertions";
import { readResponse } from "../../harness/http";
import { sharedSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";

let system: TestSystem;
let tenant: Tenant;
beforeAll(async () => {
  system = await sharedSystem();
  tenant = await seedTenant(system);
});

const get = (headers: Record<string, string>) => fetch(`${system.baseUrl}/v1/new-page`, { headers });

async function expectUnauthorized(response: Response, code: "missing_token" | "invalid_token") {
  expectError(await readResponse(response), 401, code);
  expect(response.headers.get("www-authenticate")).toStartWith("Bearer");
}

describe("authentication at the gateway", () => {
  test("when a request carries no credentials, then it is 401 missing_token with WWW-Authenticate", async () => {
    await expectUnauthorized(await get({}), "missing_token");
  });

  test("when the key is malformed, then it is 401 invalid_token", async () => {
    await expectUnauthorized(await get({ authorization: "Bearer wsk_nope" }), "invalid_token");
    await expectUnauthorized(await get({ "x-api-key": "not a key at all" }), "invalid_token");
  });

  test("when a key has the right shape and checksum but was never issued, then it is 401 invalid_token", async () => {
    await expectUnauthorized(await get({ authorization: `Bearer ${generateKey("wsk").key}` }), "invalid_token");
  });

  test("when one character of a real key is changed, then the checksum refuses it", async () => {
    const key = await tenant.key();
    const last = key.at(-1) === "a" ? "b" : "a";
    await expectUnauthorized(await get({ authorization: `Bearer ${key.slice(0, -1)}${last}` }), "invalid_token");
  });

  test("when the Authorization header is not a Bearer credential, then it is 401 invalid_token", async () => {
    await expectUnauthorized(await get({ authorization: `Basic ${btoa("user:pass")}` }), "invalid_token");
  });

  test("when the key comes as Bearer in any case or as X-API-Key, then it is accepted", async () => {
    const key = await tenant.key();
    const variants: Record<string, string>[] = [{ authorization: `Bearer ${key}` }, { authorization: `bearer ${key}` }, { authorization: `BEARER ${key}` }, { "x-api-key": key }];
    for (const headers of variants) {
      expect((await get(headers)).status).toBe(200);
    }
  });

  test("when both headers are sent, then Authorization wins", async () => {
    const key = await tenant.key();
    expect((await get({ authorization: `Bearer ${key}`, "x-api-key": "garbage" })).status).toBe(200);
    await expectUnauthorized(await get({ authorization: "Bearer garbage", "x-api-key": key }), "invalid_token");
  });

  test("when a key has expired, then it is 401 invalid_token", async () => {
    const expiresAt = Date.now() + 1500;
    const key = await tenant.key({ expires_at: new Date(expiresAt).toISOString() });
    let response = await get({ authorization: `Bearer ${key}` });
    expect(response.status).toBe(200);
    // Asked again until it stops working: no sooner than its expiry, and soon after it.
    while (response.status === 200 && Date.now() < expiresAt + 5_000) {
      await response.arrayBuffer();
      await Bun.sleep(50);
      response = await get({ authorization: `Bearer ${key}` });
    }
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    await expectUnauthorized(response, "invalid_token");
  });

  test("when an expired key is given a new expiry or none, then its very next request is served", async () => {
    const expiresAt = Date.now() + 1000;
    const { id, key } = await tenant.keyWithId({ expires_at: new Date(expiresAt).toISOString() });
    // Served once, so the gateway holds it; then refused once it has expired.
    expect((await get({ authorization: `Bearer ${key}` })).status).toBe(200);
    await Bun.sleep(expiresAt - Date.now() + 100);
    await expectUnauthorized(await get({ authorization: `Bearer ${key}` }), "invalid_token");
    await tenant.admin.updateKey(tenant.workspaceId, id, { expires_at: null });
    expect((await get({ authorization: `Bearer ${key}` })).status).toBe(200);
    await tenant.admin.updateKey(tenant.workspaceId, id, { expires_at: new Date(Date.now() + 60_000).toISOString() });
    expect((await get({ authorization: `Bearer ${key}` })).status).toBe(200);
  });

  test("when a key is revoked, then its very next request is 401 invalid_token", async () => {
    const { id, key } = await tenant.keyWithId();
    expect((await get({ authorization: `Bearer ${key}` })).status).toBe(200);
    await tenant.admin.revokeKey(tenant.workspaceId, id);
    await expectUnauthorized(await get({ authorization: `Bearer ${key}` }), "invalid_token");
  });

  test("when the key's creator is deactivated, then the key stops working, and works again on reactivation", async () => {
    const memberId = await tenant.member("member");
    const key = await tenant.key({ created_by: memberId });
    expect((await get({ authorization: `Bearer ${key}` })).status).toBe(200);
    await tenant.admin.updateMember(tenant.workspaceId, memberId, { active: false });
    await expectUnauthorized(await get({ authorization: `Bearer ${key}` }), "invalid_token");
    await tenant.admin.updateMember(tenant.workspaceId, memberId, { active: true });
    expect((await get({ authorization: `Bearer ${key}` })).status).toBe(200);
  });

  test("when X-Request-Id is sent it is echoed, and otherwise one is made, on success and on error", async () => {
    const key = await tenant.key();
    const echoed = await get({ authorization: `Bearer ${key}`, "x-request-id": "trace-123" });
    expect(echoed.headers.get("x-request-id")).toBe("trace-123");
    const made = await get({});
    const id = made.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await made.json()).error.details.request_id).toBe(id);
  });
});

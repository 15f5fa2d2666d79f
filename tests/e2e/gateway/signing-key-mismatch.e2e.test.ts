import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { expectError } from "../../harness/assertions";
import { apiClient } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";
import { metric } from "../security/helpers";

/**
 * A gateway whose INTERNAL_SIGNING_KEY the services do not hold (a deployment
 * fault) signs principals they refuse. The client's key was accepted: the
 * answer is the gateway's 503 (not executed), never a 401 that blames the
 * client's key, and the fault shows in the gateway's metrics.
 */

let system: TestSystem;

beforeAll(async () => {
  system = await startSystem({
    env: { INTERNAL_SIGNING_KEY: randomBytes(32).toString("base64url") },
    gatewayEnv: { INTERNAL_SIGNING_KEY: randomBytes(32).toString("base64url") },
  });
}, 180_000);

afterAll(async () => {
  await system?.stop();
});

describe("a service that refuses the gateway's principal", () => {
  test("when the gateway and the services hold different signing keys, then a valid key's request is answered 503 service_unavailable with Retry-After and its rate-limit headers, and counted as refused", async () => {
    const tenant = await seedTenant(system);
    const call = apiClient(system.baseUrl, await tenant.key());
    const before = await metric(system.adminUrl, "upstream_errors_total", { service: "pages", kind: "refused" });
    for (const [method, path, body] of [["GET", "/v1/new-page"], ["POST", "/v1/new-page", { title: "never made" }]] as const) {
      const response = await call(method, path, body);
      expectError(response, 503, "service_unavailable");
      expect(response.headers.get("retry-after")).toBe("1");
      expect(response.headers.get("www-authenticate")).toBeNull();
      expect(response.headers.get("x-ratelimit-limit")).not.toBeNull();
      expect(response.body.error.details.request_id).toBe(response.headers.get("x-request-id"));
    }
    expect(await metric(system.adminUrl, "upstream_errors_total", { service: "pages", kind: "refused" })).toBe(before + 2);
  });
});

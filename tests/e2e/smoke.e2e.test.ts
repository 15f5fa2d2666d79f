import { describe, expect, test } from "bun:test";
import { apiClient } from "../harness/http";
import { sharedSystem } from "../harness/system";
import { seedTenant } from "../harness/tenant";

describe("a fresh system", () => {
  test("when a seeded key lists pages, then the gateway answers 200 with rate-limit headers", async () => {
    const system = await sharedSystem();
    const tenant = await seedTenant(system);
    const call = apiClient(system.baseUrl, await tenant.key());
    const response = await call("GET", "/v1/new-page");
    expect(response.status).toBe(200);
    expect(response.headers.get("x-ratelimit-limit")).toBe("1000");
  });
});

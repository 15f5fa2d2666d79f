import { describe, expect, test } from "bun:test";
import { seedTenantWithClient } from "../harness/tenant";

describe("a fresh system", () => {
  test("when a seeded key lists pages, then the gateway answers 200 with rate-limit headers", async () => {
    const { call } = await seedTenantWithClient();
    const response = await call("GET", "/v1/new-page");
    expect(response.status).toBe(200);
    expect(response.headers.get("x-ratelimit-limit")).toBe("1000");
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiClient, readResponse } from "../../harness/http";
import { sharedSystem, startSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";

const APP = "https://app.example.com";
let system: TestSystem;

beforeAll(async () => {
  system = await startSystem({ gatewayEnv: { CORS_ALLOWED_ORIGINS: `${APP}, http://localhost:5173` } });
  // Starting the processes takes more than a hook's default few seconds on a busy machine.
}, 120_000);
afterAll(async () => {
  await system?.stop();
});

function preflight(baseUrl: string, path: string, origin: string) {
  return fetch(baseUrl + path, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "PUT", "access-control-request-headers": "authorization, content-type, if-match" },
  });
}

describe("CORS preflight", () => {
  test("when an allowed origin asks, then 204 with the methods and headers it may use, without a key", async () => {
    const response = await preflight(system.baseUrl, "/v1/new-page/0190a5e0-0000-7000-8000-000000000000", APP);
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(APP);
    expect(response.headers.get("access-control-allow-methods")).toContain("PUT");
    for (const header of ["Authorization", "X-API-Key", "Content-Type", "Idempotency-Key", "If-Match", "If-None-Match"]) {
      expect(response.headers.get("access-control-allow-headers")).toContain(header);
    }
    expect(response.headers.get("vary")).toContain("Origin");
  });

  test("when preflights are sent, then they count against no key", async () => {
    const key = await (await seedTenant(system)).key();
    const call = apiClient(system.baseUrl, key);
    const before = await call("GET", "/v1/new-page", undefined, { origin: APP });
    for (let i = 0; i < 5; i++) expect((await preflight(system.baseUrl, "/v1/new-page", APP)).status).toBe(204);
    const after = await call("GET", "/v1/new-page", undefined, { origin: APP });
    if (after.headers.get("x-ratelimit-reset") === before.headers.get("x-ratelimit-reset")) {
      expect(Number(after.headers.get("x-ratelimit-remaining"))).toBe(Number(before.headers.get("x-ratelimit-remaining")) - 1);
    }
  });

  test("when an origin that is not allowed asks, then 204 without allow headers, and the browser stops there", async () => {
    const response = await preflight(system.baseUrl, "/v1/new-page", "https://evil.example");
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("when CORS_ALLOWED_ORIGINS is not set, then no origin is allowed", async () => {
    const response = await preflight((await sharedSystem()).baseUrl, "/v1/new-page", APP);
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("when any preflight is answered, then it carries an X-Request-Id like every answer", async () => {
    for (const origin of [APP, "https://evil.example"]) {
      expect((await preflight(system.baseUrl, "/v1/new-page", origin)).headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

describe("CORS on answers", () => {
  test("when an allowed origin calls, then every answer, errors included, allows it and exposes the headers a script needs", async () => {
    const key = await (await seedTenant(system)).key();
    const call = apiClient(system.baseUrl, key);
    const created = await call("POST", "/v1/new-page", { title: "From the browser" }, { origin: APP, "idempotency-key": crypto.randomUUID() });
    expect(created.status).toBe(201);
    expect(created.headers.get("access-control-allow-origin")).toBe(APP);
    const exposed = created.headers.get("access-control-expose-headers")!.split(", ");
    for (const header of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "X-Request-Id", "ETag", "Location", "Idempotency-Replayed"]) {
      expect(exposed).toContain(header);
    }
    expect(created.headers.get("vary")).toContain("Origin");
    const unauthorized = await readResponse(await fetch(`${system.baseUrl}/v1/new-page`, { headers: { origin: APP } }));
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("access-control-allow-origin")).toBe(APP);
  });

  test("when another origin calls, then the answer does not allow it", async () => {
    const key = await (await seedTenant(system)).key();
    const response = await apiClient(system.baseUrl, key)("GET", "/v1/new-page", undefined, { origin: "https://evil.example" });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    expect(response.headers.get("vary")).toContain("Origin");
  });
});

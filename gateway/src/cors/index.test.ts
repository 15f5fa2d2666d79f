import { describe, expect, test } from "bun:test";
import { ConfigError } from "@ws/shared";
import { parseCorsOrigins, withCors } from ".";

describe("CORS_ALLOWED_ORIGINS", () => {
  test("when it is unset or empty, then no origin is allowed; * allows every origin", () => {
    expect(parseCorsOrigins(undefined)).toEqual({ kind: "none" });
    expect(parseCorsOrigins("  ")).toEqual({ kind: "none" });
    expect(parseCorsOrigins("*")).toEqual({ kind: "any" });
  });

  test("when it lists origins, then each is kept as browsers send it", () => {
    const parsed = parseCorsOrigins("https://app.example.com, http://localhost:5173");
    expect(parsed).toEqual({ kind: "list", origins: new Set(["https://app.example.com", "http://localhost:5173"]) });
  });

  test("when an entry is not an origin (a path, another scheme, a bare host), then the gateway stops naming the variable", () => {
    for (const value of ["https://app.example.com/", "https://app.example.com/path", "ftp://example.com", "app.example.com", "https://a.example, *"]) {
      expect(() => parseCorsOrigins(value)).toThrow(ConfigError);
      expect(() => parseCorsOrigins(value)).toThrow("CORS_ALLOWED_ORIGINS");
    }
  });
});

describe("the CORS wrapper", () => {
  const inner = () => Promise.resolve(new Response("{}", { headers: { "x-request-id": "r" } }));
  const preflight = (origin: string) =>
    new Request("http://gateway/v1/new-page", { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST" } });

  test("when a preflight comes from an allowed origin, then it is answered 204 with the allow headers without reaching the API", async () => {
    let reached = false;
    const serve = withCors(parseCorsOrigins("https://app.example.com"), () => {
      reached = true;
      return inner();
    });
    const response = await serve(preflight("https://app.example.com"));
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(response.headers.get("access-control-allow-headers")).toContain("Idempotency-Key");
    expect(response.headers.get("vary")).toBe("Origin");
    expect(reached).toBe(false);
  });

  test("when a preflight comes from another origin, then it is 204 without allow headers, so the browser stops", async () => {
    const response = await withCors(parseCorsOrigins("https://app.example.com"), inner)(preflight("https://evil.example"));
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("when a preflight is answered, then it carries a request id like every answer, the caller's when it sent a sane one", async () => {
    const serve = withCors(parseCorsOrigins("https://app.example.com"), inner);
    expect((await serve(preflight("https://evil.example"))).headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const traced = preflight("https://app.example.com");
    traced.headers.set("x-request-id", "trace-42");
    expect((await serve(traced)).headers.get("x-request-id")).toBe("trace-42");
  });
});

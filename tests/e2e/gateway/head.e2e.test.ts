import { describe, expect, test } from "bun:test";
import { apiClient } from "../../harness/http";
import { sharedSystem } from "../../harness/system";
import { seedTenantWithClient } from "../../harness/tenant";

/** Headers that differ between any two answers (request id, rate-limit count, date) or that only frame a body. */
const PER_REQUEST = new Set(["x-request-id", "x-ratelimit-remaining", "date", "content-length", "transfer-encoding"]);
const lasting = (headers: Headers) => [...headers.entries()].filter(([name]) => !PER_REQUEST.has(name)).sort();

describe("HEAD wherever GET is served", () => {
  test("when HEAD is sent to each API path that serves GET, then it answers the GET's status and headers with no body", async () => {
    const { call } = await seedTenantWithClient();
    const page = (await call("POST", "/v1/new-page", { title: "Head" })).body;
    const calendar = (await call("POST", "/api/calendar/calendars", { name: "Head" })).body;
    const event = (await call("POST", "/api/calendar/events", { calendar_id: calendar.id, starts_at: "2026-03-02T10:00:00Z", ends_at: "2026-03-02T11:00:00Z" })).body;
    for (const path of ["/v1/new-page", `/v1/new-page/${page.id}`, "/api/calendar/calendars", `/api/calendar/calendars/${calendar.id}`, "/api/calendar/events", `/api/calendar/events/${event.id}`, "/v1/new-page/0190a5e0-0000-7000-8000-000000000000"]) {
      const get = await call("GET", path);
      const head = await call("HEAD", path);
      expect(`${path} ${head.status}`).toBe(`${path} ${get.status}`);
      expect(head.text).toBe("");
      expect(lasting(head.headers)).toEqual(lasting(get.headers));
    }
  });

  test("when HEAD is sent, then it counts against the rate limit like a GET, and without a key it is 401", async () => {
    const { tenant, baseUrl } = await seedTenantWithClient();
    const call = apiClient(baseUrl, await tenant.key({ rate_limit_per_minute: 3 }));
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await call("HEAD", "/v1/new-page"));
    const sameWindow = new Set(answers.map((answer) => answer.headers.get("x-ratelimit-reset"))).size === 1;
    if (sameWindow) expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    expect(answers[0]!.headers.get("x-ratelimit-remaining")).toBe("2");
    expect((await apiClient(baseUrl)("HEAD", "/v1/new-page")).status).toBe(401);
  });

  test("when HEAD is sent to the unauthenticated paths, then they answer as their GET does", async () => {
    const { baseUrl } = await sharedSystem();
    for (const path of ["/openapi.json", "/healthz", "/docs"]) {
      const response = await fetch(baseUrl + path, { method: "HEAD" });
      expect(`${path} ${response.status}`).toBe(`${path} 200`);
      expect(await response.text()).toBe("");
    }
  });

  test("when another method is refused with 405, then Allow names HEAD beside GET", async () => {
    const { call } = await seedTenantWithClient();
    const refused = await call("PATCH", "/v1/new-page");
    expect(refused.status).toBe(405);
    expect(refused.headers.get("allow")).toBe("GET, HEAD, POST");
  });
});

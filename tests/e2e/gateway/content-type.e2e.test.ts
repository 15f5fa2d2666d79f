import { describe, expect, test } from "bun:test";
import { sharedSystem } from "../../harness/system";
import { seedTenantWithClient } from "../../harness/tenant";
import { PAGES, createPage } from "../pages/pages-client";

/** Every JSON answer says `Content-Type: application/json`, as the error objects always have, on whichever runtime made it. */
describe("the type of every JSON answer", () => {
  test("when pages, calendars, events, probes and errors are answered, then Content-Type is application/json exactly", async () => {
    const system = await sharedSystem();
    const { call } = await seedTenantWithClient();
    const page = await createPage(call, { title: "typed" });
    const calendar = await call("POST", "/api/calendar/calendars", { name: "typed" });
    const answers = {
      "page list": await call("GET", PAGES),
      "page": await call("GET", `${PAGES}/${page.id}`),
      "page created": await call("POST", PAGES, { title: "second" }),
      "page updated": await call("PUT", `${PAGES}/${page.id}`, { title: "renamed" }),
      "calendar created": calendar,
      "calendar list": await call("GET", "/api/calendar/calendars"),
      "event list": await call("GET", "/api/calendar/events"),
      "validation error": await call("GET", `${PAGES}?per_page=0`),
      "not found": await call("GET", `${PAGES}/${crypto.randomUUID()}`),
      "liveness": await call("GET", "/healthz"),
      "readiness": await call("GET", "/readyz"),
    };
    const types = Object.fromEntries(Object.entries(answers).map(([name, answer]) => [name, answer.headers.get("content-type")]));
    expect(types).toEqual(Object.fromEntries(Object.keys(answers).map((name) => [name, "application/json"])));
    const management = await fetch(`${system.adminUrl}/admin/v1/workspaces`, { headers: { authorization: `Bearer ${system.adminToken}` } });
    expect(management.headers.get("content-type")).toBe("application/json");
  });
});

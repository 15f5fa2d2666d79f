import { beforeAll, describe, expect, test } from "bun:test";
import { PRINCIPAL_HEADER, signPrincipal, signingKeyFrom, type Principal } from "@ws/shared";
import { sharedSystem, type TestSystem } from "../../harness/system";

let system: TestSystem;
beforeAll(async () => {
  system = await sharedSystem();
});

const principal: Principal = {
  workspace_id: "00000000-0000-7000-8000-000000000001",
  member_id: "00000000-0000-7000-8000-000000000002",
  key_id: "00000000-0000-7000-8000-000000000003",
  scopes: ["docs:read", "calendar:read"],
  target_team_ids: null,
  visible_team_ids: [],
  request_id: "test",
};

describe("services cannot be called around the gateway", () => {
  test("when a service is called without a principal, then it is 401", async () => {
    for (const url of [`${system.pagesUrl}/v1/new-page`, `${system.calendarUrl}/api/calendar/events`]) {
      const response = await fetch(url);
      expect(response.status).toBe(401);
      expect((await response.json()).error.code).toBe("missing_token");
    }
  });

  test("when the principal is signed with another key, then it is 401", async () => {
    const forged = await signPrincipal(principal, { method: "GET", path: "/v1/new-page" }, signingKeyFrom("x".repeat(40)));
    const response = await fetch(`${system.pagesUrl}/v1/new-page`, { headers: { [PRINCIPAL_HEADER]: forged } });
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe("invalid_token");
  });

  test("when a genuine principal is replayed against another operation, then it is 401", async () => {
    const token = await signPrincipal(principal, { method: "GET", path: "/v1/new-page" }, signingKeyFrom(system.signingKey));
    expect((await fetch(`${system.pagesUrl}/v1/new-page`, { headers: { [PRINCIPAL_HEADER]: token } })).status).toBe(200);
    const replayed = await fetch(`${system.pagesUrl}/v1/new-page`, { method: "POST", headers: { [PRINCIPAL_HEADER]: token, "content-type": "application/json" }, body: '{"title":"x"}' });
    expect(replayed.status).toBe(401);
  });

  test("when the principal is garbage, then it is 401 before the body is even parsed", async () => {
    const response = await fetch(`${system.calendarUrl}/api/calendar/events`, { method: "POST", headers: { [PRINCIPAL_HEADER]: "abc", "content-type": "application/json" }, body: "{bad" });
    expect(response.status).toBe(401);
  });
});

import { describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { PAGES, clientFor, createPage, pagesTenant } from "./pages-client";

type Listed = { id: string };

/** A workspace with two teams and a page at workspace level and in each team, made by the owner. */
async function teamWorkspace() {
  const { tenant, call } = await pagesTenant();
  const teamA = await tenant.team("A");
  const teamB = await tenant.team("B");
  const workspacePage = await createPage(call, { title: "workspace" });
  const pageA = await createPage(call, { title: "in A", team_id: teamA });
  const pageB = await createPage(call, { title: "in B", team_id: teamB });
  expect([workspacePage.team_id, pageA.team_id, pageB.team_id]).toEqual([null, teamA, teamB]);
  return { tenant, owner: call, teamA, teamB, workspacePage, pageA, pageB };
}

describe("team targeting", () => {
  test("when a key targets team A, then it reads, updates and deletes A's pages", async () => {
    const { tenant, pageA } = await teamWorkspace();
    const call = await clientFor(tenant, { team_ids: [(pageA.team_id as string)] });
    expect((await call("GET", `${PAGES}/${pageA.id}`)).status).toBe(200);
    expect((await call("PUT", `${PAGES}/${pageA.id}`, { content: "ok" })).status).toBe(200);
    expect((await call("DELETE", `${PAGES}/${pageA.id}`)).status).toBe(204);
  });

  test("when a key targets team A, then team B's page and the workspace-level page answer 403 on every operation", async () => {
    const { tenant, teamA, pageB, workspacePage } = await teamWorkspace();
    const call = await clientFor(tenant, { team_ids: [teamA] });
    for (const page of [pageB, workspacePage]) {
      expectError(await call("GET", `${PAGES}/${page.id}`), 403, "insufficient_permissions");
      expectError(await call("PUT", `${PAGES}/${page.id}`, { title: "no" }), 403, "insufficient_permissions");
      expectError(await call("DELETE", `${PAGES}/${page.id}`), 403, "insufficient_permissions");
    }
  });

  test("when a key targets team A, then the list shows only A's pages", async () => {
    const { tenant, teamA, pageA } = await teamWorkspace();
    const call = await clientFor(tenant, { team_ids: [teamA] });
    const response = await call("GET", PAGES);
    expect(response.body.total).toBe(1);
    expect(response.body.data.map((p: Listed) => p.id)).toEqual([pageA.id]);
  });

  test("when a key with one team creates a page without team_id, then the page goes into that team", async () => {
    const { tenant, teamA } = await teamWorkspace();
    const call = await clientFor(tenant, { team_ids: [teamA] });
    expect((await createPage(call, { title: "defaulted" })).team_id).toBe(teamA);
  });

  test("when a key with one team creates a page in another team or at workspace level, then 403", async () => {
    const { tenant, teamA, teamB } = await teamWorkspace();
    const call = await clientFor(tenant, { team_ids: [teamA] });
    expectError(await call("POST", PAGES, { title: "x", team_id: teamB }), 403, "insufficient_permissions");
    expectError(await call("POST", PAGES, { title: "x", team_id: null }), 403, "insufficient_permissions");
    expect((await call("GET", PAGES)).body.total).toBe(1);
  });

  test("when a key with several teams creates a page without team_id, then 422 names team_id, and naming one works", async () => {
    const { tenant, teamA, teamB } = await teamWorkspace();
    const call = await clientFor(tenant, { team_ids: [teamA, teamB] });
    expectError(await call("POST", PAGES, { title: "x" }), 422, "validation_error", ["team_id"]);
    expect((await createPage(call, { title: "x", team_id: teamB })).team_id).toBe(teamB);
    expect((await call("GET", PAGES)).body.total).toBe(3);
  });

  test("when team_id names the team in capitals, then the page goes into that team, for the team's key and for a workspace-wide key", async () => {
    const { tenant, owner, teamA } = await teamWorkspace();
    const call = await clientFor(tenant, { team_ids: [teamA] });
    expect((await createPage(call, { title: "capitals", team_id: teamA.toUpperCase() })).team_id).toBe(teamA);
    expect((await createPage(owner, { title: "capitals", team_id: teamA.toUpperCase() })).team_id).toBe(teamA);
  });

  test("when a workspace-wide key names a team that does not exist, then 404 names team_id; a malformed one is 422", async () => {
    const { owner } = await teamWorkspace();
    expectError(await owner("POST", PAGES, { title: "x", team_id: "0190a5e0-0000-7000-8000-000000000000" }), 404, "not_found", ["team_id"]);
    expectError(await owner("POST", PAGES, { title: "x", team_id: "team-a" }), 422, "validation_error", ["team_id"]);
  });

  test("when the owner's workspace-wide key lists, then it sees every team's pages and workspace-level ones", async () => {
    const { owner } = await teamWorkspace();
    expect((await owner("GET", PAGES)).body.total).toBe(3);
  });
});

describe("visibility", () => {
  test("when a member outside team B uses a key, then B's page is 404 on every operation and missing from the list", async () => {
    const { tenant, teamA, pageA, pageB, workspacePage } = await teamWorkspace();
    const member = await tenant.member("member", [teamA]);
    const call = await clientFor(tenant, { created_by: member });
    expectError(await call("GET", `${PAGES}/${pageB.id}`), 404, "not_found");
    expectError(await call("PUT", `${PAGES}/${pageB.id}`, { title: "no" }), 404, "not_found");
    expectError(await call("DELETE", `${PAGES}/${pageB.id}`), 404, "not_found");
    const list = await call("GET", `${PAGES}?sort=title&order=asc`);
    expect(list.body.total).toBe(2);
    expect(list.body.data.map((p: Listed) => p.id)).toEqual([pageA.id, workspacePage.id]);
    expect((await call("GET", `${PAGES}/${workspacePage.id}`)).status).toBe(200);
  });

  test("when a member in no team creates in team B, then 404 names team_id: a team the creator cannot see answers as any hidden resource", async () => {
    const { tenant, teamB } = await teamWorkspace();
    const member = await tenant.member("member");
    const call = await clientFor(tenant, { created_by: member });
    expectError(await call("POST", PAGES, { title: "x", team_id: teamB }), 404, "not_found", ["team_id"]);
  });

  test("when an admin outside every team lists, then every team's pages are visible", async () => {
    const { tenant } = await teamWorkspace();
    const admin = await tenant.member("admin");
    const call = await clientFor(tenant, { created_by: admin });
    expect((await call("GET", PAGES)).body.total).toBe(3);
  });
});

import { describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { PAGES, createPage, pagesTenant } from "./pages-client";

const STRONG_TAG = /^"\d+-[0-9a-f-]{36}"$/;

describe("ETag and Location", () => {
  test("when a page is created, then 201 carries its strong ETag and a Location where GET reads it", async () => {
    const { call } = await pagesTenant();
    const created = await call("POST", PAGES, { title: "Tagged" });
    expect(created.status).toBe(201);
    const etag = created.headers.get("etag")!;
    expect(etag).toMatch(STRONG_TAG);
    expect(created.headers.get("location")).toBe(`${PAGES}/${created.body.id}`);
    const read = await call("GET", created.headers.get("location")!);
    expect(read.body).toEqual(created.body);
    expect(read.headers.get("etag")).toBe(etag);
  });

  test("when a page is updated, then the answer carries a new ETag and GET agrees", async () => {
    const { call } = await pagesTenant();
    const created = await call("POST", PAGES, { title: "v1" });
    const updated = await call("PUT", `${PAGES}/${created.body.id}`, { title: "v2" });
    expect(updated.headers.get("etag")).toMatch(STRONG_TAG);
    expect(updated.headers.get("etag")).not.toBe(created.headers.get("etag"));
    expect((await call("GET", `${PAGES}/${created.body.id}`)).headers.get("etag")).toBe(updated.headers.get("etag"));
  });
});

describe("If-None-Match on GET", () => {
  test("when it names the current tag, then 304 with the ETag and no body; once the page changed, 200 with the new one", async () => {
    const { call } = await pagesTenant();
    const created = await call("POST", PAGES, { title: "Cached" });
    const etag = created.headers.get("etag")!;
    const notModified = await call("GET", `${PAGES}/${created.body.id}`, undefined, { "if-none-match": etag });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe("");
    expect(notModified.headers.get("etag")).toBe(etag);
    expect(notModified.headers.get("x-ratelimit-remaining")).not.toBeNull();
    expect((await call("GET", `${PAGES}/${created.body.id}`, undefined, { "if-none-match": `"other", W/${etag}` })).status).toBe(304);
    await call("PUT", `${PAGES}/${created.body.id}`, { content: "changed" });
    const changed = await call("GET", `${PAGES}/${created.body.id}`, undefined, { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.body.content).toBe("changed");
  });
});

describe("If-Match on PUT and DELETE", () => {
  test("when it names the current tag, then the update is made; a second update with the same, now stale, tag is 412 and changes nothing", async () => {
    const { call } = await pagesTenant();
    const created = await call("POST", PAGES, { title: "Shared doc" });
    const etag = created.headers.get("etag")!;
    const mine = await call("PUT", `${PAGES}/${created.body.id}`, { content: "mine" }, { "if-match": etag });
    expect(mine.status).toBe(200);
    const theirs = await call("PUT", `${PAGES}/${created.body.id}`, { content: "theirs" }, { "if-match": etag });
    expectError(theirs, 412, "precondition_failed");
    expect(theirs.headers.get("x-ratelimit-limit")).not.toBeNull();
    expect((await call("GET", `${PAGES}/${created.body.id}`)).body).toEqual(mine.body);
  });

  test("when two editors update at once with the same tag, then exactly one wins and the other gets 412", async () => {
    const { call } = await pagesTenant();
    const created = await call("POST", PAGES, { title: "Race" });
    const etag = created.headers.get("etag")!;
    const answers = await Promise.all(
      ["a", "b", "c", "d"].map((content) => call("PUT", `${PAGES}/${created.body.id}`, { content }, { "if-match": etag })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412, 412, 412]);
    const winner = answers.find((answer) => answer.status === 200)!;
    expect((await call("GET", `${PAGES}/${created.body.id}`)).body.content).toBe(winner.body.content);
  });

  test("when it is *, then any version will do; a weak or foreign tag never matches", async () => {
    const { call } = await pagesTenant();
    const page = await createPage(call, { title: "Any" });
    const other = await call("POST", PAGES, { title: "Other" });
    const current = (await call("GET", `${PAGES}/${page.id}`)).headers.get("etag")!;
    expect((await call("PUT", `${PAGES}/${page.id}`, { title: "Star" }, { "if-match": "*" })).status).toBe(200);
    const fresh = (await call("GET", `${PAGES}/${page.id}`)).headers.get("etag")!;
    expect(fresh).not.toBe(current);
    expectError(await call("PUT", `${PAGES}/${page.id}`, { title: "Weak" }, { "if-match": `W/${fresh}` }), 412, "precondition_failed");
    expectError(await call("PUT", `${PAGES}/${page.id}`, { title: "Foreign" }, { "if-match": other.headers.get("etag")! }), 412, "precondition_failed");
  });

  test("when a delete names a stale tag, then 412 and the page stays; with the current tag it is deleted", async () => {
    const { call } = await pagesTenant();
    const created = await call("POST", PAGES, { title: "Delete me" });
    const stale = created.headers.get("etag")!;
    const current = (await call("PUT", `${PAGES}/${created.body.id}`, { title: "Changed" })).headers.get("etag")!;
    expectError(await call("DELETE", `${PAGES}/${created.body.id}`, undefined, { "if-match": stale }), 412, "precondition_failed");
    expect((await call("GET", `${PAGES}/${created.body.id}`)).status).toBe(200);
    expect((await call("DELETE", `${PAGES}/${created.body.id}`, undefined, { "if-match": current })).status).toBe(204);
    expect((await call("GET", `${PAGES}/${created.body.id}`)).status).toBe(404);
  });

  test("when the page does not exist, then 404 comes before any precondition", async () => {
    const { call } = await pagesTenant();
    const missing = "0190a5e0-0000-7000-8000-000000000000";
    expectError(await call("PUT", `${PAGES}/${missing}`, { title: "x" }, { "if-match": "*" }), 404, "not_found");
    expectError(await call("DELETE", `${PAGES}/${missing}`, undefined, { "if-match": `"1-${missing}"` }), 404, "not_found");
  });
});

import { describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { PAGES, TIMESTAMP, clientFor, createPage, pagesTenant } from "./pages-client";

const MiB = 1024 * 1024;
const MISSING_ID = "0190a5e0-0000-7000-8000-000000000000";

describe("create page", () => {
  test("when a title and content are sent, then 201 returns the full page with updated_at equal to created_at", async () => {
    const { call } = await pagesTenant();
    const response = await call("POST", PAGES, { title: "Plan", content: "# Goals" });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(["content", "created_at", "id", "team_id", "title", "updated_at"]);
    expect(response.body).toMatchObject({ title: "Plan", content: "# Goals", team_id: null });
    expect(response.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(response.body.created_at).toMatch(TIMESTAMP);
    expect(response.body.updated_at).toBe(response.body.created_at);
  });

  test("when content is omitted, then it is the empty string", async () => {
    const { call } = await pagesTenant();
    expect((await createPage(call, { title: "Empty" })).content).toBe("");
  });

  test("when unknown fields are sent, then they are ignored", async () => {
    const { call } = await pagesTenant();
    const page = await createPage(call, { title: "Extra", id: "mine", created_at: "1999-01-01T00:00:00Z", color: "red" });
    expect(page.id).not.toBe("mine");
    expect(page).not.toHaveProperty("color");
    expect(page.created_at.startsWith("1999")).toBe(false);
  });

  test("when the title is missing, empty, blank, too long or not a string, then 422 validation_error names title", async () => {
    const { call } = await pagesTenant();
    for (const body of [{}, { content: "x" }, { title: "" }, { title: "   \n\t" }, { title: "a".repeat(256) }, { title: 5 }, { title: null }, { title: ["a"] }]) {
      expectError(await call("POST", PAGES, body), 422, "validation_error", ["title"]);
    }
  });

  test("when the title is 255 emoji, then it is valid, and 256 emoji are not", async () => {
    const { call } = await pagesTenant();
    expect((await createPage(call, { title: "🦄".repeat(255) })).title).toBe("🦄".repeat(255));
    expect((await createPage(call, { title: "a".repeat(255) })).title.length).toBe(255);
    expectError(await call("POST", PAGES, { title: "🦄".repeat(256) }), 422, "validation_error", ["title"]);
  });

  test("when content is not a string, then 422 names content", async () => {
    const { call } = await pagesTenant();
    for (const content of [1, null, { a: 1 }, true]) {
      expectError(await call("POST", PAGES, { title: "t", content }), 422, "validation_error", ["content"]);
    }
  });

  test("when the body is not JSON or not an object, then 400 bad_request", async () => {
    const { call } = await pagesTenant();
    expectError(await call("POST", PAGES, "{not json"), 400, "bad_request");
    expectError(await call("POST", PAGES, "[1]"), 400, "bad_request");
    expectError(await call("POST", PAGES, JSON.stringify({ title: "x" }), { "content-type": "text/plain" }), 400, "bad_request");
  });

  test("when the path has a trailing slash, then it works the same", async () => {
    const { call } = await pagesTenant();
    const created = await call("POST", `${PAGES}/`, { title: "Slash" });
    expect(created.status).toBe(201);
    expect((await call("GET", `${PAGES}/${created.body.id}/`)).body).toEqual(created.body);
  });

  test("when 5 MiB of Markdown is sent, then it reads back identical", async () => {
    const { call } = await pagesTenant();
    const line = "## Heading ü 🦄\n\n- item with `code` and **bold** text\n";
    const content = line.repeat(Math.ceil((5 * MiB) / line.length)).slice(0, 5 * MiB);
    const page = await createPage(call, { title: "Big", content });
    const read = await call("GET", `${PAGES}/${page.id}`);
    expect(read.status).toBe(200);
    expect(read.body.content === content).toBe(true);
  });

  test("when the body is larger than 10 MiB, then the gateway answers 413 payload_too_large", async () => {
    const { call } = await pagesTenant();
    expectError(await call("POST", PAGES, { title: "Huge", content: "x".repeat(10 * MiB + 1) }), 413, "payload_too_large");
  });
});

describe("get page", () => {
  test("when the page exists, then 200 returns it", async () => {
    const { call } = await pagesTenant();
    const page = await createPage(call, { title: "Read me", content: "body" });
    const response = await call("GET", `${PAGES}/${page.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(page);
  });

  test("when the id is unknown or malformed, then 404 not_found", async () => {
    const { call } = await pagesTenant();
    for (const id of [MISSING_ID, "not-a-uuid", "1", "0190a5e0-0000-7000-8000-00000000000Z", "%20"]) {
      expectError(await call("GET", `${PAGES}/${id}`), 404, "not_found");
    }
  });
});

describe("update page", () => {
  test("when only the title is sent, then the content is kept and updated_at moves on", async () => {
    const { call } = await pagesTenant();
    const page = await createPage(call, { title: "Old", content: "keep" });
    const response = await call("PUT", `${PAGES}/${page.id}`, { title: "New" });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: page.id, title: "New", content: "keep", created_at: page.created_at });
    expect(response.body.updated_at > page.updated_at).toBe(true);
    expect(response.body.updated_at).toMatch(TIMESTAMP);
  });

  test("when only content is sent, then the title is kept and the content replaced fully", async () => {
    const { call } = await pagesTenant();
    const page = await createPage(call, { title: "Keep", content: "one two three" });
    const response = await call("PUT", `${PAGES}/${page.id}`, { content: "four" });
    expect(response.body).toMatchObject({ title: "Keep", content: "four" });
  });

  test("when content is the empty string, then it is cleared", async () => {
    const { call } = await pagesTenant();
    const page = await createPage(call, { title: "Clear", content: "something" });
    expect((await call("PUT", `${PAGES}/${page.id}`, { content: "" })).body.content).toBe("");
    expect((await call("GET", `${PAGES}/${page.id}`)).body.content).toBe("");
  });

  test("when the body has neither title nor content, then 422 names title and content", async () => {
    const { call } = await pagesTenant();
    const page = await createPage(call, { title: "Nothing" });
    expectError(await call("PUT", `${PAGES}/${page.id}`, {}), 422, "validation_error", ["title", "content"]);
    expectError(await call("PUT", `${PAGES}/${page.id}`, { other: 1 }), 422, "validation_error", ["title", "content"]);
  });

  test("when the title is null, blank, too long or not a string, then 422 names title and nothing changes", async () => {
    const { call } = await pagesTenant();
    const page = await createPage(call, { title: "Stay" });
    for (const title of [null, "", "  ", "🦄".repeat(256), 3]) {
      expectError(await call("PUT", `${PAGES}/${page.id}`, { title }), 422, "validation_error", ["title"]);
    }
    expectError(await call("PUT", `${PAGES}/${page.id}`, { content: 42 }), 422, "validation_error", ["content"]);
    expect((await call("GET", `${PAGES}/${page.id}`)).body).toEqual(page);
  });

  test("when the page does not exist or the id is malformed, then 404 not_found", async () => {
    const { call } = await pagesTenant();
    expectError(await call("PUT", `${PAGES}/${MISSING_ID}`, { title: "x" }), 404, "not_found");
    expectError(await call("PUT", `${PAGES}/nope`, { title: "x" }), 404, "not_found");
  });

  test("when two updates land back to back, then updated_at strictly increases each time", async () => {
    const { call } = await pagesTenant();
    const page = await createPage(call, { title: "Fast" });
    let previous = page.updated_at;
    for (let i = 0; i < 10; i++) {
      const response = await call("PUT", `${PAGES}/${page.id}`, { content: String(i) });
      expect(response.body.updated_at > previous).toBe(true);
      previous = response.body.updated_at;
    }
  });
});

describe("delete page", () => {
  test("when the page exists, then 204 with an empty body, and every later operation is 404", async () => {
    const { call } = await pagesTenant();
    const page = await createPage(call, { title: "Bye" });
    const deleted = await call("DELETE", `${PAGES}/${page.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect(deleted.headers.get("x-request-id")).toBeTruthy();
    expectError(await call("GET", `${PAGES}/${page.id}`), 404, "not_found");
    expectError(await call("PUT", `${PAGES}/${page.id}`, { title: "back" }), 404, "not_found");
    expectError(await call("DELETE", `${PAGES}/${page.id}`), 404, "not_found");
    expect((await call("GET", PAGES)).body.total).toBe(0);
  });

  test("when the page does not exist or the id is malformed, then 404 not_found", async () => {
    const { call } = await pagesTenant();
    expectError(await call("DELETE", `${PAGES}/${MISSING_ID}`), 404, "not_found");
    expectError(await call("DELETE", `${PAGES}/12345`), 404, "not_found");
  });

  test("when the key lacks docs:delete, then 403 insufficient_permissions even for a missing page", async () => {
    const { tenant } = await pagesTenant();
    const reader = await clientFor(tenant, { permissions: { docs: "write" } });
    expectError(await reader("DELETE", `${PAGES}/${MISSING_ID}`), 403, "insufficient_permissions");
  });

  test("when no key is sent, then 401", async () => {
    const { baseUrl } = await pagesTenant();
    const response = await fetch(`${baseUrl}${PAGES}/${MISSING_ID}`, { method: "DELETE" });
    expect(response.status).toBe(401);
  });
});

describe("cross-workspace isolation", () => {
  test("when another workspace's key uses a page id, then get, update and delete answer 404 and its list does not show it", async () => {
    const mine = await pagesTenant();
    const theirs = await pagesTenant();
    const page = await createPage(mine.call, { title: "Private", content: "secret" });
    expectError(await theirs.call("GET", `${PAGES}/${page.id}`), 404, "not_found");
    expectError(await theirs.call("PUT", `${PAGES}/${page.id}`, { title: "hijack" }), 404, "not_found");
    expectError(await theirs.call("DELETE", `${PAGES}/${page.id}`), 404, "not_found");
    const list = await theirs.call("GET", `${PAGES}?title=Private`);
    expect(list.body).toEqual({ data: [], total: 0, page: 1, per_page: 20 });
    const created = await createPage(theirs.call, { title: "Theirs" });
    expect((await mine.call("GET", PAGES)).body.data.map((p: { id: string }) => p.id)).toEqual([page.id]);
    expectError(await mine.call("GET", `${PAGES}/${created.id}`), 404, "not_found");
    expect((await mine.call("GET", `${PAGES}/${page.id}`)).body).toEqual(page);
  });
});

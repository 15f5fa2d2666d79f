import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import {
  PRINCIPAL_HEADER,
  createLogger,
  migrate,
  openDatabase,
  signPrincipal,
  signingKeyFrom,
  uuidv7,
  type Database,
  type Principal,
} from "@ws/shared";
import { createApp } from "../app";

const key = signingKeyFrom("unit-test-signing-key-unit-test-signing-key");
let database: Database;
let dataDir: string;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "pages-unit-"));
  database = await openDatabase({ dataDir, poolMax: 4 }, { pg_trgm });
  await migrate(database.sql, "pages", new URL("../migrations/", import.meta.url));
  app = createApp({ sql: database.sql, signingKey: key, logger: createLogger("pages", "error"), isDraining: () => false });
  // Starting PGlite and migrating takes seconds on a busy machine.
}, 60_000);

afterAll(async () => {
  await database.close();
  await rm(dataDir, { recursive: true, force: true });
});

function principal(overrides: Partial<Principal> = {}): Principal {
  return {
    workspace_id: uuidv7(),
    member_id: uuidv7(),
    key_id: uuidv7(),
    scopes: ["docs:read", "docs:create", "docs:update", "docs:delete"],
    target_team_ids: null,
    visible_team_ids: [],
    request_id: "req-unit",
    ...overrides,
  };
}

async function call(who: Principal, method: string, pathAndQuery: string, body?: unknown) {
  const path = new URL(pathAndQuery, "http://pages").pathname;
  const headers: Record<string, string> = { [PRINCIPAL_HEADER]: await signPrincipal(who, { method, path }, key) };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await app.handle(
    new Request(`http://pages${pathAndQuery}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
  );
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe("pages routes, in process", () => {
  test("when a page is created, then it reads back identical with updated_at equal to created_at", async () => {
    const who = principal();
    const created = await call(who, "POST", "/v1/new-page", { title: "Hello", extra: 1 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: "Hello", content: "", team_id: null });
    expect(created.body.updated_at).toBe(created.body.created_at);
    expect(created.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const read = await call(who, "GET", `/v1/new-page/${created.body.id}`);
    expect(read).toEqual({ status: 200, body: created.body });
  });

  test("when a title has 255 emoji, then it is accepted, and 256 are refused naming title", async () => {
    const who = principal();
    expect((await call(who, "POST", "/v1/new-page", { title: "😀".repeat(255) })).status).toBe(201);
    const tooLong = await call(who, "POST", "/v1/new-page", { title: "😀".repeat(256) });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error.details.fields).toEqual(["title"]);
  });

  test("when the title is blank, missing, null or a number, then 422 names title", async () => {
    const who = principal();
    for (const body of [{ title: " \t\n" }, {}, { title: null }, { title: 7 }, { title: "" }]) {
      const response = await call(who, "POST", "/v1/new-page", body);
      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe("validation_error");
      expect(response.body.error.details.fields).toEqual(["title"]);
    }
  });

  test("when a page is updated twice at once, then updated_at strictly increases", async () => {
    const who = principal();
    const created = await call(who, "POST", "/v1/new-page", { title: "T" });
    const first = await call(who, "PUT", `/v1/new-page/${created.body.id}`, { content: "a" });
    const second = await call(who, "PUT", `/v1/new-page/${created.body.id}`, { content: "b" });
    expect(first.body.updated_at > created.body.updated_at).toBe(true);
    expect(second.body.updated_at > first.body.updated_at).toBe(true);
  });

  test("when the list has bad parameters, then 422 names each", async () => {
    const who = principal();
    for (const [query, field] of [["page=0", "page"], ["per_page=1.5", "per_page"], ["sort=x", "sort"], ["order=up", "order"], ["page=abc", "page"]]) {
      const response = await call(who, "GET", `/v1/new-page?${query}`);
      expect(response.status).toBe(422);
      expect(response.body.error.details.fields).toEqual([field]);
    }
  });

  test("when the list is asked for 1000 per page, then it answers with 100 and the defaults", async () => {
    const response = await call(principal(), "GET", "/v1/new-page/?per_page=1000");
    expect(response).toEqual({ status: 200, body: { data: [], total: 0, page: 1, per_page: 100 } });
  });

  test("when the title filter holds %, _ and \\, then they match literally", async () => {
    const who = principal();
    for (const title of ["100% done", "100 done", "a_b", "axb", "back\\slash", "backslash"]) {
      await call(who, "POST", "/v1/new-page", { title });
    }
    const titles = async (filter: string) =>
      (await call(who, "GET", `/v1/new-page?sort=title&order=asc&title=${encodeURIComponent(filter)}`)).body.data.map(
        (page: { title: string }) => page.title,
      );
    expect(await titles("0%")).toEqual(["100% done"]);
    expect(await titles("A_")).toEqual(["a_b"]);
    expect(await titles("K\\S")).toEqual(["back\\slash"]);
    expect(await titles("\u0000")).toEqual([]);
  });

  test("when an id is malformed, then every operation answers 404", async () => {
    const who = principal();
    expect((await call(who, "GET", "/v1/new-page/nope")).status).toBe(404);
    expect((await call(who, "PUT", "/v1/new-page/nope", { title: "x" })).status).toBe(404);
    expect((await call(who, "DELETE", "/v1/new-page/nope")).status).toBe(404);
  });

  test("when a content holds a NUL or a lone surrogate, then 422 names content", async () => {
    const who = principal();
    for (const raw of ['{"title":"t","content":"a\\u0000b"}', '{"title":"t","content":"\\ud800"}']) {
      const path = "/v1/new-page";
      const response = await app.handle(
        new Request(`http://pages${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", [PRINCIPAL_HEADER]: await signPrincipal(who, { method: "POST", path }, key) },
          body: raw,
        }),
      );
      expect(response.status).toBe(422);
      expect(((await response.json()) as { error: { details: { fields: string[] } } }).error.details.fields).toEqual(["content"]);
    }
  });
});

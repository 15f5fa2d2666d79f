import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Database } from "@ws/shared";
import { pagesService } from "../definition";
import { inProcessPages, newWorkspacePrincipal as principal } from "./in-process-app";

let database: Database;
let dataDir: string;
let call: Awaited<ReturnType<typeof inProcessPages>>["call"];
let callWithText: Awaited<ReturnType<typeof inProcessPages>>["callWithText"];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "pages-unit-"));
  database = await openDatabase({ dataDir, poolMax: 4 }, pagesService.embeddedExtensions);
  ({ call, callWithText } = await inProcessPages(database));
}, 120_000);

afterAll(async () => {
  await database.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("pages routes, in process", () => {
  test("when a page is created, then it reads back identical with updated_at equal to created_at", async () => {
    const who = principal();
    const created = await call(who, "POST", "/v1/new-page", { title: "Hello", extra: 1 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: "Hello", content: "", team_id: null });
    expect(created.body.updated_at).toBe(created.body.created_at);
    expect(created.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const read = await call(who, "GET", `/v1/new-page/${created.body.id}`);
    expect({ status: read.status, body: read.body }).toEqual({ status: 200, body: created.body });
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
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { data: [], total: 0, page: 1, per_page: 100 } });
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
      const response = await callWithText(who, "POST", "/v1/new-page", raw);
      expect(response.status).toBe(422);
      expect(response.body.error.details.fields).toEqual(["content"]);
    }
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, openDatabase, uuidv7, type Database } from "@ws/shared";
import { pagesService } from "../definition";
import { findListedPage, insertPage, updatePage } from "./repository";

let database: Database;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "pages-repository-"));
  database = await openDatabase({ dataDir, poolMax: 2 }, pagesService.embeddedExtensions);
  await migrate(database.sql, "pages", new URL("../migrations/", import.meta.url));
}, 120_000);

afterAll(async () => {
  await database.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** What the content takes in an answer: JSON.stringify is how the service writes it. */
const jsonBytes = (content: string) => Buffer.byteLength(JSON.stringify(content));

describe("what a page's content takes in an answer", () => {
  const workspaceId = uuidv7();
  const escaped = 'quote " backslash \\ newline \n tab \t controls \u0001\u001f\u007f é 😀 \u2028';

  test("when a page is written with characters JSON escapes, then its listed size is its content's JSON, quotes included", async () => {
    for (const content of ["", "plain", escaped, "\u0001".repeat(1000)]) {
      const page = await insertPage(database.sql, { id: uuidv7(), workspaceId, teamId: null, title: "t", content });
      expect((await findListedPage(database.sql, workspaceId, page.id))!.content_json_bytes).toBe(jsonBytes(content));
    }
  });

  test("when only the title changes, then the size stays; when the content changes, then it follows", async () => {
    const page = await insertPage(database.sql, { id: uuidv7(), workspaceId, teamId: null, title: "t", content: escaped });
    await updatePage(database.sql, workspaceId, page.id, { title: "renamed" });
    expect((await findListedPage(database.sql, workspaceId, page.id))!.content_json_bytes).toBe(jsonBytes(escaped));
    await updatePage(database.sql, workspaceId, page.id, { content: "\u0002".repeat(10) });
    expect((await findListedPage(database.sql, workspaceId, page.id))!.content_json_bytes).toBe(jsonBytes("\u0002".repeat(10)));
  });
});

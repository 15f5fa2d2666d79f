import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PUBLIC_OPERATIONS, openDatabase, releaseHeld, type Database, type Principal } from "@ws/shared";
import { testStorage, type TestStorage } from "../../../../tests/harness/database";
import { pagesService } from "../definition";
import { inProcessPages, newWorkspacePrincipal } from "./in-process-app";
import { LISTED_CONTENT_MAX_BYTES } from "./repository";

/**
 * The pages service's room for answers in transit, in process (on real
 * PostgreSQL when DATABASE_URL is set). An answer holds its room until the server has sent it; through the
 * gateway, how long an answer its client does not read keeps that room depends
 * on socket buffers and the gateway's timeouts (three unread answers of a 9 MiB
 * page held it for about a second), so no test there can count on it. Here an
 * answer not yet sent is a request whose room is not yet released (releaseHeld
 * stands for its answer going out).
 */
const MiB = 1024 * 1024;
const PAGES = PUBLIC_OPERATIONS.listPages.path;
let storage: TestStorage;
let database: Database;
let call: Awaited<ReturnType<typeof inProcessPages>>["call"];

beforeAll(async () => {
  storage = await testStorage();
  database = await openDatabase({ url: storage.databaseUrl, dataDir: storage.env.DATA_DIR!, poolMax: 4 }, pagesService.embeddedExtensions);
  ({ call } = await inProcessPages(database));
}, 120_000);

afterAll(async () => {
  await database?.close();
  await storage?.dispose();
});

const workspace = (): Principal => newWorkspacePrincipal({ scopes: ["docs:read", "docs:create"] });

/** Answers made but, as far as the budget knows, not yet sent. */
const unsent: Request[] = [];

async function send(who: Principal, method: string, pathAndQuery: string, body?: unknown) {
  const answer = await call(who, method, pathAndQuery, body);
  unsent.push(answer.request);
  return answer;
}

function sendAll(): void {
  for (const request of unsent.splice(0)) releaseHeld(request);
}

async function createPages(who: Principal, count: number, content: string): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const created = await send(who, "POST", PAGES, { title: `page ${String(index).padStart(3, "0")}`, content });
    expect(created.status).toBe(201);
    ids.push(created.body.id);
  }
  sendAll();
  return ids;
}

function expectShareRefusal(response: { status: number; headers: Headers; body: any }): void {
  expect(response.status).toBe(429);
  expect(response.body.error.code).toBe("rate_limit_exceeded");
  expect(response.body.error.details.reason).toBe("list_answers_in_transit");
  expect(response.headers.get("retry-after")).toBe("1");
}

describe("answers in transit, in the pages service", () => {
  test("when lists of pages of 64 KiB each, not yet sent, hold the workspace's share, then its next such list is 429, while a list whose contents total 64 KiB is still served", async () => {
    const who = workspace();
    const [first] = await createPages(who, 100, "x".repeat(LISTED_CONTENT_MAX_BYTES));
    try {
      // 100 × 64 KiB is 6.25 MiB an answer: two fit the 16 MiB share, a third does not.
      for (let answer = 0; answer < 2; answer++) expect((await send(who, "GET", `${PAGES}?per_page=100`)).status).toBe(200);
      expectShareRefusal(await send(who, "GET", `${PAGES}?per_page=100`));
      expect((await send(who, "GET", `${PAGES}?per_page=1`)).status).toBe(200);
      expect((await send(who, "GET", `${PAGES}/${first}`)).status).toBe(200);
      sendAll();
      const served = await send(who, "GET", `${PAGES}?per_page=100`);
      expect(served.status).toBe(200);
      expect(served.body.data.map((page: { content: string }) => page.content.length)).toEqual(Array(100).fill(LISTED_CONTENT_MAX_BYTES));
    } finally {
      sendAll();
    }
  });

  test("when two workspaces keep reading their 8 MiB pages, then each holds one answer at a time (429) and a third workspace's 8 MiB page is served", async () => {
    const content = "x".repeat(8 * MiB);
    const [a, b, c] = [workspace(), workspace(), workspace()];
    const [pageOfA] = await createPages(a, 1, content);
    const [pageOfB] = await createPages(b, 1, content);
    const [pageOfC] = await createPages(c, 1, content);
    try {
      expect((await send(a, "GET", `${PAGES}/${pageOfA}`)).status).toBe(200);
      expect((await send(b, "GET", `${PAGES}/${pageOfB}`)).status).toBe(200);
      expectShareRefusal(await send(a, "GET", `${PAGES}/${pageOfA}`));
      expectShareRefusal(await send(b, "GET", `${PAGES}/${pageOfB}`));
      const third = await send(c, "GET", `${PAGES}/${pageOfC}`);
      expect(third.status).toBe(200);
      expect(third.body.content.length).toBe(content.length);
    } finally {
      sendAll();
    }
  });

  test("when the gateway says a workspace's client gave up an answer the service had sent whole, then that workspace leaves 10 MiB free like one that gave up here: its 15 MiB list is 429 beside another's", async () => {
    const half = "x".repeat(7.5 * MiB);
    const [a, b, c] = [workspace(), workspace(), workspace()];
    for (const who of [a, b, c]) await createPages(who, 2, half);
    try {
      expect((await send(a, "GET", `${PAGES}?per_page=2`)).status).toBe(200);
      // c's last list went out whole here, and its client gave it up 2 s ago, as the gateway saw.
      expectShareRefusal(await send({ ...c, answer_given_up_ms_ago: 2_000 }, "GET", `${PAGES}?per_page=2`));
      // One the gateway saw no give-up of is a newcomer: 15 + 15 MiB fit the 32 MiB budget.
      expect((await send(b, "GET", `${PAGES}?per_page=2`)).status).toBe(200);
    } finally {
      sendAll();
    }
  });
});

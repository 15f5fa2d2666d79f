import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  PRINCIPAL_HEADER,
  createLogger,
  migrate,
  openDatabase,
  releaseHeld,
  signPrincipal,
  signingKeyFrom,
  uuidv7,
  type Database,
  type Principal,
} from "@ws/shared";
import { createApp } from "../../../services/pages/src/app";
import { LISTED_CONTENT_MAX_BYTES } from "../../../services/pages/src/pages/repository";
import { testStorage, type TestStorage } from "../../harness/database";
import { PAGES } from "./pages-client";

/**
 * The pages service's room for answers in transit, with real PostgreSQL but in
 * process. An answer holds its room until the server has sent it; through the
 * gateway, how long an answer its client does not read keeps that room depends
 * on socket buffers and the gateway's timeouts (three unread answers of a 9 MiB
 * page held it for about a second), so no test there can count on it. Here an
 * answer not yet sent is a request whose room is not yet released (releaseHeld
 * stands for its answer going out).
 */
const MiB = 1024 * 1024;
const key = signingKeyFrom("answers-in-transit-signing-key-answers-in-transit");
let storage: TestStorage;
let database: Database;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  storage = await testStorage();
  database = await openDatabase({ url: storage.databaseUrl, dataDir: storage.env.DATA_DIR!, poolMax: 4 });
  await migrate(database.sql, "pages", new URL("../../../services/pages/src/migrations/", import.meta.url));
  app = createApp({ sql: database.sql, principalKeys: [key], logger: createLogger("pages", "error"), isDraining: () => false });
}, 120_000);

afterAll(async () => {
  await database?.close();
  await storage?.dispose();
});

function workspace(): Principal {
  return {
    workspace_id: uuidv7(),
    member_id: uuidv7(),
    key_id: uuidv7(),
    scopes: ["docs:read", "docs:create"],
    target_team_ids: null,
    visible_team_ids: [],
    request_id: "answers-in-transit",
  };
}

/** Answers made but, as far as the budget knows, not yet sent. */
const unsent: Request[] = [];

async function send(who: Principal, method: string, pathAndQuery: string, body?: unknown) {
  const path = new URL(pathAndQuery, "http://pages").pathname;
  const headers: Record<string, string> = { [PRINCIPAL_HEADER]: await signPrincipal(who, { method, path }, key) };
  if (body !== undefined) headers["content-type"] = "application/json";
  const request = new Request(`http://pages${pathAndQuery}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const response = await app.handle(request);
  unsent.push(request);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
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
});

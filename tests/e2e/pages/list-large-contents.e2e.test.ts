import { describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { eventually } from "../../harness/eventually";
import { apiClient } from "../../harness/http";
import { portOf, rawConnection } from "../../harness/raw-http";
import { PAGES, createPage, pagesTenant } from "./pages-client";

const MiB = 1024 * 1024;

describe("lists of pages with large contents", () => {
  test("when a listed page's content is larger than what comes with the rows, then it is listed whole, byte for byte", async () => {
    const { call } = await pagesTenant();
    const large = "é".repeat(100 * 1024) + "end";
    const small = "short";
    await createPage(call, { title: "small", content: small });
    const created = await createPage(call, { title: "large", content: large });
    const listed = await call("GET", `${PAGES}?sort=title&order=asc`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((page: { title: string }) => page.title)).toEqual(["large", "small"]);
    expect(listed.body.data[0]).toEqual({ ...created, content: large });
    expect(listed.body.data[1].content).toBe(small);
    expect(Object.keys(listed.body.data[0]).sort()).toEqual(["content", "created_at", "id", "team_id", "title", "updated_at"]);
  });

  test("when the pages of one result page hold more content than one answer holds at once, then the list is streamed: 200, every content whole, the envelope after", async () => {
    const { call } = await pagesTenant();
    const content = "x".repeat(9 * MiB);
    for (const title of ["a", "b"]) await createPage(call, { title, content });
    const listed = await call("GET", `${PAGES}?sort=title&order=asc`);
    expect(listed.status).toBe(200);
    expect(listed.headers.get("content-type")).toBe("application/json");
    expect(listed.body).toMatchObject({ total: 2, page: 1, per_page: 20 });
    expect(listed.body.data.map((page: { title: string; content: string }) => [page.title, page.content.length])).toEqual([
      ["a", content.length],
      ["b", content.length],
    ]);
    expect(listed.body.data.every((page: { content: string }) => page.content === content)).toBe(true);
  });

  test("when a streamed list goes unread, then it holds its workspace's whole share: another large read of the workspace is 429 until it has gone", async () => {
    const { tenant, baseUrl } = await pagesTenant();
    const key = await tenant.key();
    const call = apiClient(baseUrl, key);
    // 1.5 Mi characters of U+0001: 1.5 MiB stored, 9 MiB as JSON ("\u0001" each); counted by the stored text, two would be a list made whole.
    const content = "\u0001".repeat(1.5 * MiB);
    for (const title of ["a", "b"]) await createPage(call, { title, content });
    const other = await createPage(call, { title: "c", content: "z".repeat(MiB) });
    const unread = rawConnection(portOf(baseUrl));
    try {
      unread.socket.pause();
      await unread.write(`GET ${PAGES}?sort=title&order=asc&per_page=2 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
      // Refused once the list has taken its room (within moments; longer on a loaded machine).
      const refused = await eventually(() => call("GET", `${PAGES}/${other.id}`), (answer) => answer.status === 429, 10_000);
      expectError(refused, 429, "rate_limit_exceeded");
      expect(refused.body.error.details.reason).toBe("list_answers_in_transit");
    } finally {
      unread.close();
    }
    const served = await eventually(() => call("GET", `${PAGES}?sort=title&order=asc&per_page=2`), (answer) => answer.status === 200, 10_000);
    expect(served.body.data.map((page: { content: string }) => page.content === content)).toEqual([true, true]);
  });

  test("when small contents and a large one together are more than one answer holds at once, then all 100 are streamed in order", async () => {
    const { call } = await pagesTenant();
    await createPage(call, { title: "a large", content: "x".repeat(10 * MiB - 1024) });
    const small = "y".repeat(64 * 1024);
    for (let index = 0; index < 99; index++) await createPage(call, { title: `b ${String(index).padStart(2, "0")}`, content: small });
    const served = await call("GET", `${PAGES}?sort=title&order=asc&per_page=100`);
    expect(served.status).toBe(200);
    expect(served.body.total).toBe(100);
    expect(served.body.data.map((page: { title: string }) => page.title)).toEqual(["a large", ...Array.from({ length: 99 }, (_, index) => `b ${String(index).padStart(2, "0")}`)]);
    expect(served.body.data[0].content.length).toBe(10 * MiB - 1024);
    expect(served.body.data.slice(1).every((page: { content: string }) => page.content === small)).toBe(true);
  });
});

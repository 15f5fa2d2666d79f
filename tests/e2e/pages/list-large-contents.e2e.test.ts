import { describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
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

  test("when the pages of one result page hold more content than one answer carries, then 422 names per_page with the most that fits, and that per_page is served", async () => {
    const { call } = await pagesTenant();
    const content = "x".repeat(9 * MiB);
    for (const title of ["a", "b"]) await createPage(call, { title, content });
    const refused = await call("GET", `${PAGES}?sort=title&order=asc`);
    expectError(refused, 422, "validation_error", ["per_page"]);
    expect(refused.body.error.details.errors[0]).toMatchObject({ field: "per_page", rule: "range", allowed: { min: 1, max: 1 } });
    for (const page of [1, 2]) {
      const served = await call("GET", `${PAGES}?sort=title&order=asc&per_page=1&page=${page}`);
      expect(served.status).toBe(200);
      expect(served.body).toMatchObject({ total: 2, page, per_page: 1 });
      expect(served.body.data[0].content.length).toBe(content.length);
    }
  });

  test("when contents take six times their size as JSON (control characters), then an answer is counted by its JSON: 422 where the stored text would fit", async () => {
    const { call } = await pagesTenant();
    // 1.5 Mi characters of U+0001: 1.5 MiB stored, 9 MiB in a body or an answer ("\u0001" each).
    const content = "\u0001".repeat(1.5 * MiB);
    for (const title of ["a", "b"]) await createPage(call, { title, content });
    const refused = await call("GET", `${PAGES}?sort=title&order=asc`);
    expectError(refused, 422, "validation_error", ["per_page"]);
    expect(refused.body.error.details.errors[0]).toMatchObject({ field: "per_page", rule: "range", allowed: { min: 1, max: 1 } });
    const served = await call("GET", `${PAGES}?sort=title&order=asc&per_page=1`);
    expect(served.status).toBe(200);
    expect(served.body.data[0].content).toBe(content);
  });

  test("when small contents and a large one together are more than one answer carries, then 422 counts them all in allowed.max, and that per_page is served", async () => {
    const { call } = await pagesTenant();
    // The large content alone (10 MiB less a little) fits the 16 MiB an answer carries; with 64 KiB pages after it, 96 of them do.
    await createPage(call, { title: "a large", content: "x".repeat(10 * MiB - 1024) });
    const small = "y".repeat(64 * 1024);
    for (let index = 0; index < 99; index++) await createPage(call, { title: `b ${String(index).padStart(2, "0")}`, content: small });
    const refused = await call("GET", `${PAGES}?sort=title&order=asc&per_page=100`);
    expectError(refused, 422, "validation_error", ["per_page"]);
    expect(refused.body.error.details.errors[0]).toMatchObject({ field: "per_page", rule: "range", allowed: { min: 1, max: 97 } });
    const served = await call("GET", `${PAGES}?sort=title&order=asc&per_page=97`);
    expect(served.status).toBe(200);
    expect(served.body.data).toHaveLength(97);
  });
});

import { describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { PAGES, createPage, pagesTenant, type Call } from "./pages-client";

type Listed = { id: string; title: string; created_at: string; updated_at: string };

async function ids(call: Call, query: string): Promise<string[]> {
  const response = await call("GET", `${PAGES}?${query}`);
  expect(response.status).toBe(200);
  return response.body.data.map((page: Listed) => page.id);
}

describe("list pages", () => {
  test("when no parameters are given, then the envelope has page 1, per_page 20 and the most recently updated first", async () => {
    const { call } = await pagesTenant();
    const a = await createPage(call, { title: "a" });
    const b = await createPage(call, { title: "b" });
    await call("PUT", `${PAGES}/${a.id}`, { content: "touched" });
    const response = await call("GET", PAGES);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(["data", "page", "per_page", "total"]);
    expect(response.body).toMatchObject({ total: 2, page: 1, per_page: 20 });
    expect(response.body.data.map((page: Listed) => page.id)).toEqual([a.id, b.id]);
    expect(response.body.data[0]).toMatchObject({ content: "touched", team_id: null });
  });

  test("when sorting by each key in each order, then the order holds and ties are broken by id", async () => {
    const { call } = await pagesTenant();
    const created = [];
    for (const title of ["beta", "Alpha", "alpha", "Gamma", "beta"]) created.push(await createPage(call, { title }));
    const byCreated = [...created].sort((x, y) => (x.created_at === y.created_at ? (x.id < y.id ? -1 : 1) : x.created_at < y.created_at ? -1 : 1));
    expect(await ids(call, "sort=created_at&order=asc")).toEqual(byCreated.map((p) => p.id));
    expect(await ids(call, "sort=created_at&order=desc")).toEqual(byCreated.map((p) => p.id).reverse());
    expect(await ids(call, "sort=updated_at&order=asc")).toEqual(byCreated.map((p) => p.id));
    const byTitle = [...created].sort((x, y) => {
      const [l, r] = [x.title.toLowerCase(), y.title.toLowerCase()];
      return l === r ? (x.id < y.id ? -1 : 1) : l < r ? -1 : 1;
    });
    expect(await ids(call, "sort=title&order=asc")).toEqual(byTitle.map((p) => p.id));
    expect(await ids(call, "sort=title&order=desc")).toEqual(byTitle.map((p) => p.id).reverse());
  });

  test("when paging through with per_page 2, then every page appears exactly once and past the end is 200 with empty data", async () => {
    const { call } = await pagesTenant();
    for (let i = 0; i < 5; i++) await createPage(call, { title: `same` });
    const seen: string[] = [];
    for (const page of [1, 2, 3]) {
      const response = await call("GET", `${PAGES}?per_page=2&page=${page}&sort=title`);
      expect(response.body).toMatchObject({ total: 5, page, per_page: 2 });
      seen.push(...response.body.data.map((p: Listed) => p.id));
    }
    expect(new Set(seen).size).toBe(5);
    expect((await call("GET", `${PAGES}?per_page=2&page=4`)).body).toEqual({ data: [], total: 5, page: 4, per_page: 2 });
    expect((await call("GET", `${PAGES}?page=99999999999`)).body).toMatchObject({ data: [], total: 5 });
  });

  test("when per_page is above 100, then it is clamped and the envelope says 100", async () => {
    const { call } = await pagesTenant();
    expect((await call("GET", `${PAGES}?per_page=101`)).body.per_page).toBe(100);
    expect((await call("GET", `${PAGES}?per_page=100000`)).body.per_page).toBe(100);
  });

  test("when a parameter is invalid, then 422 validation_error names it", async () => {
    const { call } = await pagesTenant();
    const cases: [string, string][] = [
      ["page=0", "page"],
      ["page=-1", "page"],
      ["page=1.5", "page"],
      ["page=abc", "page"],
      ["page=", "page"],
      ["per_page=0", "per_page"],
      ["per_page=2.5", "per_page"],
      ["per_page=ten", "per_page"],
      ["sort=id", "sort"],
      ["sort=TITLE", "sort"],
      ["order=up", "order"],
      ["order=", "order"],
    ];
    for (const [query, field] of cases) {
      expectError(await call("GET", `${PAGES}?${query}`), 422, "validation_error", [field]);
    }
  });

  test("when filtering by title, then the match is a case-insensitive substring", async () => {
    const { call } = await pagesTenant();
    const plan = await createPage(call, { title: "Quarterly PLANNING" });
    const other = await createPage(call, { title: "Airplane notes" });
    await createPage(call, { title: "Budget" });
    const response = await call("GET", `${PAGES}?title=plan&sort=title&order=asc`);
    expect(response.body.total).toBe(2);
    expect(response.body.data.map((p: Listed) => p.id)).toEqual([other.id, plan.id]);
    expect((await call("GET", `${PAGES}?title=PlAnNiNg`)).body.total).toBe(1);
    expect((await call("GET", `${PAGES}?title=zzz`)).body).toEqual({ data: [], total: 0, page: 1, per_page: 20 });
  });

  test("when the title filter holds %, _ or \\, then they match only themselves", async () => {
    const { call } = await pagesTenant();
    for (const title of ["50% off", "50 off", "snake_case", "snakeXcase", "C:\\path", "C:path"]) await createPage(call, { title });
    const titles = async (filter: string) =>
      (await call("GET", `${PAGES}?sort=title&order=asc&title=${encodeURIComponent(filter)}`)).body.data.map((p: Listed) => p.title);
    expect(await titles("%")).toEqual(["50% off"]);
    expect(await titles("0% O")).toEqual(["50% off"]);
    expect(await titles("_")).toEqual(["snake_case"]);
    expect(await titles("e_c")).toEqual(["snake_case"]);
    expect(await titles("\\")).toEqual(["C:\\path"]);
    expect(await titles(":\\p")).toEqual(["C:\\path"]);
  });

  test("when the filter and paging combine, then total counts every match and data only the requested page", async () => {
    const { call } = await pagesTenant();
    for (let i = 0; i < 7; i++) await createPage(call, { title: `match ${i}` });
    for (let i = 0; i < 3; i++) await createPage(call, { title: `other ${i}` });
    const response = await call("GET", `${PAGES}?title=MATCH&per_page=3&page=3`);
    expect(response.body).toMatchObject({ total: 7, page: 3, per_page: 3 });
    expect(response.body.data).toHaveLength(1);
  });
});

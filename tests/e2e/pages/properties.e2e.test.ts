import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { isErrorObject } from "../../harness/http";
import { PAGES, pagesTenant } from "./pages-client";

/** Any text, including astral characters, whitespace and JSON's awkward characters. */
const text = (maxLength: number) =>
  fc.oneof(
    fc.string({ unit: "grapheme", maxLength }),
    fc.string({ unit: "binary", maxLength }),
    fc.string({ unit: fc.constantFrom(" ", "\t", "\n", "%", "_", "\\", "\"", "'", "é", "🦄", "\u0000", "\u200b"), maxLength }),
  );

const anyJson = fc.oneof(text(40), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }), fc.object({ maxDepth: 1 }));

function expectWellFormed(response: { status: number; body: unknown }) {
  expect(response.status).toBeLessThan(500);
  if (response.status >= 300) expect(isErrorObject(response.body)).toBe(true);
}

describe("pages under random input", () => {
  test("when random titles and contents are created, then no 5xx, every refusal is the error object, and every created page reads back identical", async () => {
    const { call } = await pagesTenant();
    await fc.assert(
      fc.asyncProperty(fc.oneof(text(300), anyJson), fc.option(fc.oneof(text(2000), anyJson), { nil: undefined }), async (title, content) => {
        const created = await call("POST", PAGES, content === undefined ? { title } : { title, content });
        expectWellFormed(created);
        if (created.status === 201) {
          expect(typeof title).toBe("string");
          expect(created.body).toMatchObject({ title, content: content ?? "" });
          expect((await call("GET", `${PAGES}/${created.body.id}`)).body).toEqual(created.body);
        } else {
          expect(created.status).toBe(422);
          expect(created.body.error.code).toBe("validation_error");
        }
      }),
      { numRuns: 100 },
    );
  });

  test("when random updates are sent, then no 5xx and an accepted update reads back identical", async () => {
    const { call } = await pagesTenant();
    const page = (await call("POST", PAGES, { title: "start" })).body;
    await fc.assert(
      fc.asyncProperty(fc.record({ title: fc.oneof(text(300), anyJson), content: fc.oneof(text(500), anyJson) }, { requiredKeys: [] }), async (body) => {
        const updated = await call("PUT", `${PAGES}/${page.id}`, body);
        expectWellFormed(updated);
        if (updated.status === 200) {
          expect((await call("GET", `${PAGES}/${page.id}`)).body).toEqual(updated.body);
        }
      }),
      { numRuns: 60 },
    );
  });

  test("when random query strings are sent to the list, then no 5xx and every answer is the envelope or the error object", async () => {
    const { call } = await pagesTenant();
    await call("POST", PAGES, { title: "Random 50% _x_ \\ é" });
    const value = fc.oneof(text(20), fc.integer().map(String), fc.double().map(String), fc.constantFrom("title", "asc", "desc", "created_at", ""));
    const name = fc.constantFrom("page", "per_page", "sort", "order", "title", "other", "page[]");
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(name, value), { maxLength: 5 }), async (pairs) => {
        const query = pairs.map(([key, v]) => `${encodeURIComponent(key)}=${encodeURIComponent(v)}`).join("&");
        const response = await call("GET", `${PAGES}?${query}`);
        expectWellFormed(response);
        if (response.status === 200) {
          expect(Array.isArray(response.body.data)).toBe(true);
          expect(response.body.per_page).toBeLessThanOrEqual(100);
          expect(response.body.total).toBeLessThanOrEqual(1);
        } else {
          expect(response.status).toBe(422);
        }
      }),
      { numRuns: 100 },
    );
  });

  test("when a random substring of a title is the filter, then that page is found", async () => {
    const { call } = await pagesTenant();
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: fc.constantFrom("a", "B", "%", "_", "\\", " ", "é", "🦄"), minLength: 1, maxLength: 30 }), fc.nat(), fc.nat(), async (title, from, size) => {
        fc.pre(title.trim() !== "");
        const created = await call("POST", PAGES, { title });
        expect(created.status).toBe(201);
        const chars = [...title];
        const start = from % chars.length;
        const filter = chars.slice(start, start + 1 + (size % (chars.length - start))).join("").toUpperCase();
        const response = await call("GET", `${PAGES}?per_page=100&title=${encodeURIComponent(filter)}`);
        expect(response.body.data.map((p: { id: string }) => p.id)).toContain(created.body.id);
        for (const page of response.body.data) expect(page.title.toUpperCase()).toContain(filter);
      }),
      { numRuns: 50 },
    );
  });
});

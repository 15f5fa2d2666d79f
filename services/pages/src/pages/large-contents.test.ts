import { describe, expect, test } from "bun:test";
import { pageJson } from "./large-contents";

const page = (content: string) => ({
  id: "0191a0a0-0000-7000-8000-000000000000",
  team_id: null,
  title: 'a "title" with "content":"" in it',
  content,
  created_at: "2026-11-28T00:00:00.000000Z",
  updated_at: "2026-11-28T00:00:00.000000Z",
});

describe("a page written as JSON in pieces", () => {
  test("when its content spans pieces, with a surrogate pair across a piece's end and characters JSON escapes, then the pieces join to JSON.stringify's text", () => {
    const piece = 1024 * 1024;
    for (const content of ["", "short \" \\ \n \u0001", "x".repeat(piece - 1) + "😀" + "y\u0002\"".repeat(piece), "é".repeat(3 * piece + 5)]) {
      const pieces = [...pageJson(page(content))];
      expect(pieces.join("")).toBe(JSON.stringify(page(content)));
      expect(Math.max(...pieces.map((text) => text.length))).toBeLessThanOrEqual(6 * piece);
    }
  });
});

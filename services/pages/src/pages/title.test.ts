import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { CreatePageBody, PAGE_TITLE_PATTERN } from "@ws/shared";
import { escapeLike } from "./repository";

const valid = (title: unknown) => Value.Check(CreatePageBody, { title });

describe("the title rule", () => {
  test("when a title has 1 to 255 code points and is not blank, then it is valid, astral characters counting once", () => {
    for (const title of ["a", " a ", "a".repeat(255), "🦄".repeat(255), "é".repeat(255), "\u200b"]) expect(valid(title)).toBe(true);
  });

  test("when a title is empty, blank, longer than 255 code points or not a string, then it is invalid", () => {
    for (const title of ["", " ", "\n\t \u00a0", "a".repeat(256), "🦄".repeat(256), "🦄".repeat(128) + "a".repeat(128), null, 1]) {
      expect(valid(title)).toBe(false);
    }
  });

  test("when JSON Schema tools read the pattern with the u flag, then it counts the same code points", () => {
    const unicode = new RegExp(PAGE_TITLE_PATTERN, "u");
    expect(unicode.test("🦄".repeat(255))).toBe(true);
    expect(unicode.test("🦄".repeat(256))).toBe(false);
    expect(unicode.test("   ")).toBe(false);
  });

  test("when a title is megabytes long, then the check fails fast", () => {
    const started = performance.now();
    expect(valid("🦄a".repeat(2_000_000))).toBe(false);
    expect(valid(" ".repeat(5_000_000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe("the title filter", () => {
  test("when a filter holds LIKE's special characters, then each is escaped", () => {
    expect(escapeLike("50%_a\\b")).toBe("50\\%\\_a\\\\b");
  });
});

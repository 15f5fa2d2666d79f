import { describe, expect, test } from "bun:test";
import { isStorableText, STORABLE_NON_BLANK_PATTERN, STORABLE_TEXT_PATTERN } from "./storable-text";

const UNSTORABLE = ["a\u0000b", "\ud800", "x\udc00", "\udc00\ud800", "🦄\ud83e"];
const STORABLE = ["", "plain", "a🦄b", "é\u200b", "\ud83e\udd84"];

describe("text the database can store", () => {
  test("when text holds a NUL or a lone surrogate, then it is refused; paired surrogates are fine", () => {
    for (const text of UNSTORABLE) expect({ text, storable: isStorableText(text) }).toEqual({ text, storable: false });
    for (const text of STORABLE) expect({ text, storable: isStorableText(text) }).toEqual({ text, storable: true });
  });

  test("when the rule is read as a schema pattern, with or without the u flag, then it agrees with the function", () => {
    for (const flags of ["", "u"]) {
      const pattern = new RegExp(STORABLE_TEXT_PATTERN, flags);
      for (const text of [...UNSTORABLE, ...STORABLE]) expect({ text, flags, storable: pattern.test(text) }).toEqual({ text, flags, storable: isStorableText(text) });
    }
  });

  test("when a name is only whitespace or unstorable, then the non-blank pattern refuses it", () => {
    const pattern = new RegExp(STORABLE_NON_BLANK_PATTERN);
    for (const text of ["", " ", "\n\t", ...UNSTORABLE]) expect({ text, ok: pattern.test(text) }).toEqual({ text, ok: false });
    for (const text of ["a", " a ", "🦄"]) expect({ text, ok: pattern.test(text) }).toEqual({ text, ok: true });
  });

  test("when text is megabytes long, then the pattern answers correctly and fast", () => {
    const pattern = new RegExp(STORABLE_TEXT_PATTERN);
    const started = performance.now();
    expect(pattern.test("ab🦄".repeat(2_500_000))).toBe(true);
    expect(pattern.test("a".repeat(10_000_000) + "\ud800")).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

/**
 * Text PostgreSQL stores and gives back unchanged. A NUL cannot be stored in a
 * text column at all, and a lone UTF-16 surrogate has no UTF-8 form: the driver
 * would store U+FFFD, so what is read back would differ from what was accepted.
 * Every service and the management API refuse such text with this one rule.
 */
const UNSTORABLE_SOURCE = String.raw`\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]`;
const UNSTORABLE = new RegExp(UNSTORABLE_SOURCE);

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/**
 * The same rule as a JSON Schema `pattern`, for request schemas. One lazy scan
 * inside a lookahead stays linear on megabytes of text in JavaScriptCore and V8
 * alike, with or without the `u` flag that JSON Schema tools add; a per-character
 * alternation such as `^(?:[^…]|pair)*$` takes JavaScriptCore a quarter of a
 * second per megabyte and gives up past ten.
 */
export const STORABLE_TEXT_PATTERN = String.raw`^(?![\s\S]*?(?:${UNSTORABLE_SOURCE}))`;

/** Storable, and not only whitespace (names). */
export const STORABLE_NON_BLANK_PATTERN = String.raw`^(?=[\s\S]*?\S)(?![\s\S]*?(?:${UNSTORABLE_SOURCE}))`;

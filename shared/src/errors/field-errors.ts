/**
 * What failed about one field, in the form every 400 and 422 carries in
 * `error.details.errors`. `details.fields` keeps listing the top-level names
 * (clients match on it); these entries say, per field, which rule failed and
 * what would have been accepted.
 */
export const FIELD_RULES = [
  "required",
  "type",
  "length",
  "blank",
  "format",
  "one_of",
  "range",
  "items",
  "unknown_field",
  "pattern",
  "text",
  "at_least_one",
  "one_only",
  "reference",
  "unique",
  "order",
  "future",
  "state",
  "invalid",
] as const;
export type FieldRule = (typeof FIELD_RULES)[number];

export interface FieldError {
  /** The field or query parameter as a path: `title`, `attendees[2].email`, `permissions.docs`. */
  field: string;
  rule: FieldRule;
  /** A sentence a person can act on, starting with the field's name. */
  message: string;
  /** What is accepted: the values for `one_of`, `{min, max}` for `length`, `range` and `items`, the format's name for `format`. */
  allowed?: unknown;
}

/** The top-level names of the fields, in order, each once: what `details.fields` lists. */
export function topLevelFields(errors: readonly FieldError[]): string[] {
  return [...new Set(errors.map((error) => error.field.split(/[.[]/)[0]!))];
}

/** One message for the whole error: each field's sentence, in order. */
export function joinMessages(errors: readonly FieldError[]): string {
  return `${errors.map((error) => error.message.replace(/\.$/, "")).join("; ")}.`;
}

/**
 * A text rule a pattern stands for, when the pattern carries it because the
 * schema keyword cannot (lengths counted in code points, not only whitespace).
 */
export interface TextRule {
  minCodePoints: number;
  maxCodePoints: number;
  notBlank: boolean;
}

const TEXT_RULES = new Map<string, TextRule>();

/** Declares what a string pattern means, so a value it refuses is explained as that rule. Returns the pattern. */
export function textRulePattern(pattern: string, rule: TextRule): string {
  TEXT_RULES.set(pattern, rule);
  return pattern;
}

export function textRuleOf(pattern: unknown): TextRule | undefined {
  return typeof pattern === "string" ? TEXT_RULES.get(pattern) : undefined;
}

/** Decimal digits only: what JavaScript's Number() also reads as a number (`0x10`, `1e1`, `+1`, ` 1`, `1.0`) is not an integer here. */
export const DECIMAL_DIGITS = "^[0-9]+$";

/** An integer's bounds, as a JSON Schema states them. */
export interface IntegerBounds {
  minimum?: number;
  maximum?: number;
}

/** An integer parameter outside its bounds, the value as it was sent (its first 40 characters). */
export function integerOutOfBounds(field: string, text: string, { minimum, maximum }: IntegerBounds): FieldError {
  const allowed = { ...(minimum === undefined ? {} : { min: minimum }), ...(maximum === undefined ? {} : { max: maximum }) };
  const range = maximum === undefined ? `of at least ${minimum ?? 0}` : `from ${minimum ?? 0} to ${maximum}`;
  return { field, rule: "range", message: `${field} must be an integer ${range} (got ${text.slice(0, 40)})`, allowed };
}

import type { ValidationError } from "elysia";
import { isStorableText, STORABLE_NON_BLANK_PATTERN } from "../text/storable-text";
import { DECIMAL_DIGITS, textRuleOf, type FieldError, type TextRule } from "../errors/field-errors";

type Schema = Record<string, unknown>;

/** One problem as TypeBox reports it (Elysia's `ValidationError.all`). */
export interface SchemaIssue {
  type: number;
  path: string;
  value: unknown;
  schema: Schema;
  message?: string;
  /** For a union: the problems of each member, in order. */
  errors?: Iterable<SchemaIssue | undefined>[];
}

/** TypeBox's ValueErrorType numbers that are explained here (stable across TypeBox 0.34). */
const ISSUE = {
  ArrayMaxItems: 2,
  ArrayMinItems: 4,
  ArrayUniqueItems: 5,
  Array: 6,
  Boolean: 14,
  IntegerExclusiveMaximum: 22,
  IntegerExclusiveMinimum: 23,
  IntegerMaximum: 24,
  IntegerMinimum: 25,
  Integer: 27,
  Kind: 31,
  Literal: 32,
  Null: 35,
  NumberExclusiveMaximum: 36,
  NumberExclusiveMinimum: 37,
  NumberMaximum: 38,
  NumberMinimum: 39,
  Number: 41,
  ObjectAdditionalProperties: 42,
  ObjectRequiredProperty: 45,
  Object: 46,
  StringFormat: 50,
  StringMaxLength: 51,
  StringMinLength: 52,
  StringPattern: 53,
  String: 54,
  Union: 62,
} as const;

const RANGE_ISSUES = new Set<number>([
  ISSUE.IntegerExclusiveMaximum,
  ISSUE.IntegerExclusiveMinimum,
  ISSUE.IntegerMaximum,
  ISSUE.IntegerMinimum,
  ISSUE.NumberExclusiveMaximum,
  ISSUE.NumberExclusiveMinimum,
  ISSUE.NumberMaximum,
  ISSUE.NumberMinimum,
]);
const TYPE_ISSUES = new Set<number>([ISSUE.Array, ISSUE.Boolean, ISSUE.Integer, ISSUE.Null, ISSUE.Number, ISSUE.Object, ISSUE.String]);
const STRING_ISSUES = new Set<number>([ISSUE.StringFormat, ISSUE.StringMaxLength, ISSUE.StringMinLength, ISSUE.StringPattern]);

/** `/attendees/0/email` → `attendees[0].email`. */
export function fieldPath(pointer: string): string {
  let out = "";
  for (const raw of pointer.split("/").filter(Boolean)) {
    const segment = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^\d+$/.test(segment) ? `[${segment}]` : out ? `.${segment}` : segment;
  }
  return out;
}

/** Elysia's query coercion: `anyOf: [string in an integer/number/boolean format, the real type]`. */
function uncoerced(schema: Schema): Schema {
  const choices = schema.anyOf as Schema[] | undefined;
  if (!Array.isArray(choices)) return schema;
  const real = choices.filter((choice) => !(choice.type === "string" && ["integer", "numeric", "boolean"].includes(String(choice.format))));
  return real.length === 1 && real.length !== choices.length ? { ...real[0], ...schema, anyOf: undefined } : schema;
}

/** The values a schema allows when it is a closed list (`enum`, or a union of constants); undefined otherwise. */
function allowedValues(schema: Schema): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  if (schema.const !== undefined) return [schema.const];
  const choices = schema.anyOf as Schema[] | undefined;
  if (Array.isArray(choices) && choices.length > 0 && choices.every((choice) => choice.const !== undefined)) return choices.map((choice) => choice.const);
  return undefined;
}

function list(values: readonly unknown[]): string {
  return values.map((value) => (typeof value === "string" ? value : JSON.stringify(value))).join(", ");
}

function bounds(min: unknown, max: unknown, unit = ""): string {
  const suffix = unit ? ` ${unit}` : "";
  if (typeof min === "number" && typeof max === "number") return `${min} to ${max}${suffix}`;
  if (typeof min === "number") return `at least ${min}${suffix}`;
  if (typeof max === "number") return `at most ${max}${suffix}`;
  return "";
}

const FORMAT_NAMES: Record<string, string> = {
  "date-time": "an RFC 3339 date-time with a time zone (for example 2026-03-02T10:00:00Z)",
  uuid: "a UUID",
  email: "an email address",
  uri: "an absolute URI",
};

/** What a schema accepts, as a noun phrase: "a UUID", "an integer from 1 to 100", "one of asc, desc". */
export function describeSchema(input: Schema): string {
  const schema = uncoerced(input);
  const values = allowedValues(schema);
  if (values) return values.length === 1 ? list(values) : `one of ${list(values)}`;
  const choices = schema.anyOf as Schema[] | undefined;
  if (Array.isArray(choices)) return choices.map(describeSchema).join(" or ");
  switch (schema.type) {
    case "string": {
      if (typeof schema.format === "string" && FORMAT_NAMES[schema.format]) return FORMAT_NAMES[schema.format]!;
      const length = bounds(schema.minLength, schema.maxLength, "characters");
      return length ? `a string of ${length}` : "a string";
    }
    case "integer":
    case "number": {
      const noun = schema.type === "integer" ? "an integer" : "a number";
      const min = schema.minimum ?? schema.exclusiveMinimum;
      const max = schema.maximum ?? schema.exclusiveMaximum;
      if (typeof min === "number" && typeof max === "number") return `${noun} from ${min} to ${max}`;
      if (typeof min === "number") return `${noun} of at least ${min}`;
      if (typeof max === "number") return `${noun} of at most ${max}`;
      return noun;
    }
    case "boolean":
      return "true or false";
    case "null":
      return "null";
    case "array":
      return "an array";
    case "object":
      return "an object";
    default:
      return "a valid value";
  }
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "number") return `the number ${value}`;
  if (typeof value === "string") return "a string";
  return typeof value;
}

function matchesType(schema: Schema, value: unknown): boolean {
  switch (uncoerced(schema).type) {
    case "string":
      return typeof value === "string";
    case "integer":
    case "number":
      return typeof value === "number";
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    default:
      return false;
  }
}

function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

function explainText(field: string, value: string, rule: TextRule): FieldError | undefined {
  const allowed = { min: rule.minCodePoints, max: rule.maxCodePoints };
  const length = codePoints(value);
  if (length < rule.minCodePoints || length > rule.maxCodePoints) {
    return { field, rule: "length", message: `${field} must be ${bounds(rule.minCodePoints, rule.maxCodePoints, "characters")} (got ${length})`, allowed };
  }
  if (rule.notBlank && value.trim() === "") return { field, rule: "blank", message: `${field} must not be blank (only whitespace)` };
  return undefined;
}

function explainString(field: string, issue: SchemaIssue): FieldError {
  const { schema } = issue;
  const value = issue.value as string;
  // The string side of Elysia's query coercion: the parameter was not a number or boolean at all.
  if (schema.format === "integer" || schema.format === "numeric") return { field, rule: "type", message: `${field} must be ${schema.format === "integer" ? "an integer" : "a number"} (got "${value.slice(0, 40)}")` };
  if (schema.format === "boolean") return { field, rule: "type", message: `${field} must be true or false (got "${value.slice(0, 40)}")` };
  const text = textRuleOf(schema.pattern);
  if (text) {
    const explained = explainText(field, value, text);
    if (explained) return explained;
  }
  if (typeof schema.format === "string" && FORMAT_NAMES[schema.format] && (issue.type === ISSUE.StringFormat || issue.type === ISSUE.StringPattern)) {
    return { field, rule: "format", message: `${field} must be ${FORMAT_NAMES[schema.format]}`, allowed: schema.format };
  }
  if (issue.type === ISSUE.StringMinLength || issue.type === ISSUE.StringMaxLength) {
    if (schema.minLength === 1 && issue.type === ISSUE.StringMinLength && schema.maxLength === undefined) {
      return { field, rule: "length", message: `${field} must not be empty`, allowed: { min: 1 } };
    }
    const allowed = { ...(typeof schema.minLength === "number" ? { min: schema.minLength } : {}), ...(typeof schema.maxLength === "number" ? { max: schema.maxLength } : {}) };
    return { field, rule: "length", message: `${field} must be ${bounds(schema.minLength, schema.maxLength, "characters")} (got ${value.length})`, allowed };
  }
  if (issue.type === ISSUE.StringPattern && schema.pattern === DECIMAL_DIGITS) {
    return { field, rule: "type", message: `${field} must be an integer written in decimal digits (got "${value.slice(0, 40)}")` };
  }
  if (issue.type === ISSUE.StringPattern) {
    if (!isStorableText(value)) return { field, rule: "text", message: `${field} must be text without NUL characters or lone surrogates` };
    if ((schema.pattern === "\\S" || schema.pattern === STORABLE_NON_BLANK_PATTERN) && value.trim() === "") {
      return { field, rule: "blank", message: `${field} must not be blank (only whitespace)` };
    }
    return { field, rule: "pattern", message: `${field} must match the pattern ${String(schema.pattern)}`, allowed: schema.pattern };
  }
  return { field, rule: "format", message: `${field} must be ${describeSchema(schema)}`, allowed: schema.format };
}

/** The first problem of the union member whose type the value has: `team_ids: [1]` against `array of uuid | null` is about the items. */
function memberIssue(issue: SchemaIssue): SchemaIssue | undefined {
  const choices = (issue.schema.anyOf as Schema[] | undefined) ?? [];
  const index = choices.findIndex((choice) => matchesType(choice, issue.value));
  if (index < 0 || !issue.errors?.[index]) return undefined;
  for (const nested of issue.errors[index]!) if (nested) return nested;
  return undefined;
}

/** One TypeBox problem as the field error a person can act on. */
export function explainIssue(issue: SchemaIssue): FieldError {
  const field = fieldPath(issue.path) || "body";
  const schema = uncoerced(issue.schema);
  // JSON has no undefined: a field whose value is undefined was not sent, whatever rule the schema checked first.
  if (issue.type === ISSUE.ObjectRequiredProperty || (issue.value === undefined && issue.path !== "")) return { field, rule: "required", message: `${field} is required` };
  if (issue.type === ISSUE.ObjectAdditionalProperties) {
    const known = Object.keys((issue.schema.properties ?? {}) as Schema);
    return { field, rule: "unknown_field", message: `${field} is not an allowed field; allowed: ${list(known)}`, allowed: known };
  }
  const values = allowedValues(schema);
  if (values) return { field, rule: "one_of", message: `${field} must be one of ${list(values)}`, allowed: values };
  if (issue.type === ISSUE.Union) {
    const nested = memberIssue(issue);
    if (nested) return explainIssue(nested);
    return { field, rule: "type", message: `${field} must be ${describeSchema(schema)} (got ${jsonType(issue.value)})` };
  }
  if (STRING_ISSUES.has(issue.type) && typeof issue.value === "string") return explainString(field, issue);
  if (RANGE_ISSUES.has(issue.type)) {
    const allowed = { min: schema.minimum ?? schema.exclusiveMinimum, max: schema.maximum ?? schema.exclusiveMaximum };
    return { field, rule: "range", message: `${field} must be ${describeSchema(schema)} (got ${String(issue.value)})`, allowed };
  }
  if (issue.type === ISSUE.ArrayMaxItems || issue.type === ISSUE.ArrayMinItems) {
    const count = Array.isArray(issue.value) ? issue.value.length : 0;
    return {
      field,
      rule: "items",
      message: `${field} must have ${bounds(schema.minItems, schema.maxItems, "items")} (got ${count})`,
      allowed: { min: schema.minItems, max: schema.maxItems },
    };
  }
  if (issue.type === ISSUE.ArrayUniqueItems) return { field, rule: "items", message: `${field} must not repeat an item` };
  if (TYPE_ISSUES.has(issue.type) || issue.type === ISSUE.Kind || issue.type === ISSUE.Literal) {
    return { field, rule: "type", message: `${field} must be ${describeSchema(schema)} (got ${jsonType(issue.value)})` };
  }
  return { field, rule: "invalid", message: `${field} is not valid: ${issue.message ?? "it breaks the schema"}` };
}

/** Every field a schema check refused, each once (the first problem TypeBox reports for it), in order. */
export function explainValidation(error: ValidationError): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const issue of error.all as unknown as SchemaIssue[]) {
    if (!issue || typeof issue.path !== "string") continue;
    const explained = explainIssue(issue);
    if (seen.has(explained.field)) continue;
    seen.add(explained.field);
    errors.push(explained);
  }
  return errors;
}

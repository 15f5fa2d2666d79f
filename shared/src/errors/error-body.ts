import { t, type Static } from "elysia";
import { ERROR_CODES, type ErrorCode } from "./codes";
import { OneOf } from "../schemas/one-of";
import { FIELD_RULES, type FieldError } from "./field-errors";

export const FieldErrorSchema = t.Object(
  {
    field: t.String({ description: "The field or query parameter as a path: `title`, `attendees[2].email`, `permissions.docs`.", examples: ["title"] }),
    rule: OneOf(FIELD_RULES, { description: "The rule that failed.", examples: ["length"] }),
    message: t.String({ description: "What is wrong and what is accepted, in a sentence.", examples: ["title must be 1 to 255 characters (got 256)"] }),
    allowed: t.Optional(
      t.Unknown({
        description: "What is accepted: the list of values for `one_of` and `unknown_field`, `{min, max}` for `length`, `range` and `items`, the format's name for `format`.",
      }),
    ),
  },
  { title: "FieldError", description: "One field that failed validation: which rule, and what is allowed." },
);

export const ErrorDetails = t.Object(
  {
    fields: t.Optional(t.Array(t.String(), { description: "Names of the offending fields or query parameters (top-level names)." })),
    errors: t.Optional(
      t.Array(FieldErrorSchema, { description: "Present whenever `fields` is: per field, the rule that failed and what is allowed." }),
    ),
    request_id: t.Optional(t.String()),
  },
  { additionalProperties: true },
);

/** The body of every 4xx and 5xx response. */
export const ErrorObject = t.Object(
  {
    error: t.Object({
      code: t.Union(ERROR_CODES.map((code) => t.Literal(code))),
      message: t.String(),
      details: t.Optional(ErrorDetails),
    }),
  },
  { $id: "#/components/schemas/Error", title: "Error" },
);
export type ErrorObject = Static<typeof ErrorObject>;

export type ErrorDetails = Record<string, unknown> & { fields?: string[]; errors?: FieldError[]; request_id?: string };

export function errorBody(code: ErrorCode, message: string, details?: ErrorDetails): ErrorObject {
  return { error: details ? { code, message, details } : { code, message } } as ErrorObject;
}

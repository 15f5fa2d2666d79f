import { t, type Static } from "elysia";
import { ERROR_CODES, type ErrorCode } from "./codes";

export const ErrorDetails = t.Object(
  {
    fields: t.Optional(t.Array(t.String(), { description: "Names of the offending fields or query parameters." })),
    request_id: t.Optional(t.String()),
  },
  { additionalProperties: true },
);

/** Spec 2.6: the body of every 4xx and 5xx response. */
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

export type ErrorDetails = Record<string, unknown> & { fields?: string[]; request_id?: string };

export function errorBody(code: ErrorCode, message: string, details?: ErrorDetails): ErrorObject {
  return { error: details ? { code, message, details } : { code, message } } as ErrorObject;
}

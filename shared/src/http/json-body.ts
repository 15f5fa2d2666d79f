import { Elysia } from "elysia";
import { ApiError } from "../errors/api-error";
import { bodyIncomplete, readBodyWithin, receivedBody, type BodyLimits } from "./request-body";

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * A JSON object may carry its own "toString" or "valueOf" keys, and then turns
 * into a TypeError wherever it is put into a string — as Elysia does while
 * describing a value that failed validation, which made `{"title":{"toString":0}}`
 * a 500. Such objects get a conversion of their own; their data stays as sent.
 * A member named `__proto__` is no field of any body, so it goes like every
 * unknown field: left as an own property, the schema check's clean-up could not
 * remove it and refused the body.
 */
function safelyConvertible(key: string, value: unknown): unknown {
  if (key === "__proto__") return undefined;
  if (value !== null && typeof value === "object" && (Object.hasOwn(value, "toString") || Object.hasOwn(value, "valueOf"))) {
    Object.defineProperty(value, Symbol.toPrimitive, { value: () => "[object Object]" });
  }
  return value;
}
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A body that is not JSON, not an object, not UTF-8, or sent without
 * Content-Type: application/json is a 400 bad_request. With `limits`, a body
 * not already read by the process's front is read within them (413 past the
 * limit) instead of whole.
 */
export async function readJsonObject(request: Request, limits?: BodyLimits): Promise<Record<string, unknown>> {
  if (!JSON_TYPE.test(request.headers.get("content-type") ?? "")) {
    throw ApiError.badRequest("Send the request body as JSON with Content-Type: application/json.");
  }
  let bytes: Uint8Array | null;
  try {
    bytes = limits ? await receivedBody(request, () => readBodyWithin(request, limits)) : await receivedBody(request);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw bodyIncomplete();
  }
  let text: string;
  try {
    text = utf8.decode(bytes ?? new Uint8Array(0));
  } catch {
    throw ApiError.badRequest("The request body is not valid UTF-8.");
  }
  let value: unknown;
  try {
    value = JSON.parse(text, safelyConvertible);
  } catch {
    throw ApiError.badRequest("The request body is not valid JSON.");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw ApiError.badRequest("The request body must be a JSON object.");
  }
  return value as Record<string, unknown>;
}

const WITHOUT_BODY = new Set(["GET", "HEAD", "DELETE", "OPTIONS"]);

/** No byte of body: neither a length above 0 nor a chunked one. */
function sentNoBody(request: Request): boolean {
  const length = request.headers.get("content-length");
  return !request.headers.has("transfer-encoding") && (length === null || length.trim() === "0");
}

/**
 * Every body an app accepts is parsed by readJsonObject, so the body rules hold
 * everywhere. `limits`: for an app whose bodies no front has read (the
 * gateway's management API). `absentIsEmpty`: a request that sends no body at
 * all reads as `{}` (the management API: rotating a key needs no options, and
 * a create without one is told which fields it needs).
 */
export function jsonBodies(limits?: () => BodyLimits, options: { absentIsEmpty?: boolean } = {}) {
  return new Elysia({ name: "json-bodies" }).onParse({ as: "global" }, async ({ request }) => {
    if (WITHOUT_BODY.has(request.method)) return null;
    if (options.absentIsEmpty && sentNoBody(request)) return {};
    const within = limits?.();
    try {
      return await readJsonObject(request, within);
    } finally {
      // Read and parsed: its bytes are no longer in transit.
      within?.lease.release();
    }
  });
}

/** 204 with no body at all: Deno refuses a Response that has a body with a null-body status. */
export function noContent(): Response {
  return new Response(null, { status: 204 });
}

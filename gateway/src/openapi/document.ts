import {
  ERROR_CODES,
  ERROR_STATUS,
  OUTCOME_UNKNOWN_DETAILS,
  OUTCOME_UNKNOWN_STATUS,
  ErrorObject,
  PATH_ID_DESCRIPTION,
  PUBLIC_OPERATION_LIST,
  PUBLIC_SERVICES,
  pathParamNames,
  resourcePathOf,
  type ErrorCode,
  type PublicOperation,
} from "@ws/shared";
import { EXPOSED_HEADERS } from "../cors";
import { IDEMPOTENCY_KEY_CHARACTERS, MAX_IDEMPOTENCY_KEY_LENGTH } from "../idempotency";
import { allowedMethods } from "../routing/route-table";
import { createSchemaRegistry, exampleOf, type JsonSchema } from "./json-schema";
import { answersEntityTag, operationErrors, readsConditionally, takesIdempotencyKey, writesConditionally } from "./operation-errors";
import { OPERATIONAL_PATHS } from "./operational-paths";

export const OPENAPI_VERSION = "3.1.0";
export const API_VERSION = "1.0.0";

type Reference = { $ref: string; description?: string };
const ref = (kind: string, name: string, description?: string): Reference =>
  description ? { $ref: `#/components/${kind}/${name}`, description } : { $ref: `#/components/${kind}/${name}` };

const RATE_LIMIT_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"];

/** The response headers, each required where the document lists it. */
const HEADERS: Record<string, { description: string; schema: JsonSchema; example: unknown }> = {
  "X-Request-Id": {
    description: "The request id: the caller's `X-Request-Id` when it is sane (1 to 128 of `A-Za-z0-9_.:-`), otherwise a new one. Also in `error.details.request_id`.",
    schema: { type: "string" },
    example: "5f1c2a4e-0b7d-4c1e-9a8f-2d3b4c5d6e7f",
  },
  "X-RateLimit-Limit": {
    description: "Requests the key may send in one clock-minute window.",
    schema: { type: "integer", minimum: 0 },
    example: 1000,
  },
  "X-RateLimit-Remaining": {
    description:
      "Requests left in the current window; never negative and never above the truth. Exact once fewer than a tenth of the limit remain; above that, a key sending several requests at once may be answered from a lease of its quota, and the header may then be lower than the truth by up to a tenth of the limit (at least 50).",
    schema: { type: "integer", minimum: 0 },
    example: 999,
  },
  "X-RateLimit-Reset": {
    description: "Unix time (seconds) at which the current window ends, on every answer (a `key_suspended` 429 too: its `Retry-After` says when the suspension ends).",
    schema: { type: "integer", minimum: 0 },
    example: 1767225660,
  },
  "Retry-After": {
    description: "Seconds to wait before retrying.",
    schema: { type: "integer", minimum: 0 },
    example: 30,
  },
  "WWW-Authenticate": {
    description: "The Bearer challenge (RFC 6750); `error=\"invalid_token\"` when a key was sent but refused.",
    schema: { type: "string" },
    example: 'Bearer realm="workspace-api", error="invalid_token"',
  },
  Allow: {
    description: "The methods the path accepts (HEAD wherever GET is).",
    schema: { type: "string" },
    example: "GET, HEAD, POST",
  },
  ETag: {
    description: "Strong entity tag of this version of the resource (its id and the microsecond of its last change). Send it back in `If-Match` to update or delete only this version, or in `If-None-Match` to read only if it changed.",
    schema: { type: "string" },
    example: '"1767225600123456-01936f3e-8a4b-7c2d-9e1f-0a1b2c3d4e5f"',
  },
  Location: {
    description: "Where the created resource can be read.",
    schema: { type: "string", format: "uri-reference" },
    example: "/v1/new-page/01936f3e-8a4b-7c2d-9e1f-0a1b2c3d4e5f",
  },
  "Idempotency-Replayed": {
    description: "`true` when this answer is the stored first answer to the request's `Idempotency-Key`, replayed without doing the work again.",
    schema: { type: "string", enum: ["true"] },
    example: "true",
  },
};
const headerComponentName = (name: string) => name.replace(/-/g, "");

interface ErrorResponseSpec {
  status: number;
  name: string;
  description: string;
  headers: string[];
  /** Headers it carries only sometimes. */
  optionalHeaders?: string[];
}

/** Every error response the public API can give, with the headers it always carries. */
const ERROR_RESPONSES: ErrorResponseSpec[] = [
  { status: 400, name: "BadRequest", description: "The request is malformed: the message says whether the body is not JSON, not an object, or sent without `Content-Type: application/json`; on the calendar a field that breaks its schema is named in `details.fields` and explained in `details.errors`.", headers: ["X-Request-Id", ...RATE_LIMIT_HEADERS] },
  { status: 401, name: "Unauthorized", description: "`missing_token`: no `Authorization` or `X-API-Key` header. `invalid_token`: the key is malformed, unknown, revoked or expired, its creator is deactivated, or `Authorization` is not a Bearer credential.", headers: ["X-Request-Id", "WWW-Authenticate"] },
  { status: 403, name: "Forbidden", description: "`insufficient_permissions`: the key lacks the operation's scope, or the resource is outside the teams the key targets. `forbidden`: the key's scopes allow it but its creator's role does not.", headers: ["X-Request-Id", ...RATE_LIMIT_HEADERS] },
  { status: 404, name: "NotFound", description: "The resource does not exist or is not visible to the key's creator.", headers: ["X-Request-Id", ...RATE_LIMIT_HEADERS] },
  { status: 405, name: "MethodNotAllowed", description: "The path exists but does not accept this method; `Allow` lists the methods it does.", headers: ["X-Request-Id", "Allow"] },
  { status: 409, name: "Conflict", description: "`idempotency_key_in_use`: the first request with this `Idempotency-Key` is still running. Retry after `Retry-After`.", headers: ["X-Request-Id", "Retry-After", ...RATE_LIMIT_HEADERS] },
  { status: 412, name: "PreconditionFailed", description: "`precondition_failed`: `If-Match` names none of the resource's current version; read it again (its `ETag`) and retry.", headers: ["X-Request-Id", ...RATE_LIMIT_HEADERS] },
  { status: 413, name: "PayloadTooLarge", description: "The request body is over the operation's limit.", headers: ["X-Request-Id", ...RATE_LIMIT_HEADERS] },
  { status: 431, name: "HeadersTooLarge", description: "The request headers are larger than 32 KiB. Answered before authentication.", headers: ["X-Request-Id"] },
  { status: 422, name: "ValidationFailed", description: "`validation_error`: the request is well formed but breaks a rule; `details.fields` names the offending fields or parameters, and `details.errors` says per field which rule failed and what is allowed. `idempotency_key_reused`: the `Idempotency-Key` was first used with another body or operation.", headers: ["X-Request-Id", ...RATE_LIMIT_HEADERS] },
  { status: 429, name: "TooManyRequests", description: "`rate_limit_exceeded`: the key used up its requests for this minute. `key_suspended`: the key went on sending far past its limit and is suspended for a while. Also `rate_limit_exceeded` for a client address that keeps failing authentication; that 429 has no key, and its `X-RateLimit-*` headers are the address's limit of failed authentications a minute, none remaining, and the end of its window. Back off exponentially.", headers: ["X-Request-Id", "Retry-After", ...RATE_LIMIT_HEADERS] },
  { status: 500, name: "InternalError", description: "Something failed on the server. The body never carries stack traces or internals; quote `X-Request-Id` when reporting it.", headers: ["X-Request-Id"], optionalHeaders: RATE_LIMIT_HEADERS },
  { status: 502, name: "OutcomeUnknown", description: "`service_unavailable` with `details.outcome: \"unknown\"`: the service received the request but its answer never came (it did not answer in time, or its connection, or its database's during the commit, broke). The request may or may not have taken effect; when the service reads it late (its process was paused, or the network held the request) it may even take effect shortly after this answer: read the resource before repeating a create. `Retry-After` only on methods that are safe to repeat (GET, PUT, DELETE). An `Idempotency-Key` whose first request ended this way replays this answer.", headers: ["X-Request-Id"], optionalHeaders: ["Retry-After", "Idempotency-Replayed", ...RATE_LIMIT_HEADERS] },
  { status: 503, name: "ServiceUnavailable", description: "The request was not executed and will not be: an upstream service or its database is unreachable, the request could not be completed before its deadline, or (with `RATE_LIMIT_FAILURE_MODE=closed`) rate limiting is unavailable. Safe to retry after `Retry-After`; an `Idempotency-Key` it held is free again.", headers: ["X-Request-Id"], optionalHeaders: ["Retry-After", ...RATE_LIMIT_HEADERS] },
];
/** The unrouted 404 (unknown path) carries no rate-limit headers: it is answered before authentication. */
const UNKNOWN_PATH: ErrorResponseSpec = { status: 404, name: "UnknownPath", description: "No public path matches.", headers: ["X-Request-Id"] };

/** Answered for a known path with a method it does not accept, before authentication. */
const METHOD_NOT_ALLOWED = ERROR_RESPONSES.find((spec) => spec.status === 405)!;
/** The methods OpenAPI can describe; HEAD is left implicit: it is served wherever GET is. */
const DESCRIBABLE_METHODS = ["get", "put", "post", "delete", "options", "patch", "trace"] as const;

export function errorCodesFor(status: number): ErrorCode[] {
  // A 502 is a 503 whose request's outcome is unknown: the same code.
  const effective = status === OUTCOME_UNKNOWN_STATUS ? ERROR_STATUS.service_unavailable : status;
  return ERROR_CODES.filter((code) => ERROR_STATUS[code] === effective);
}

function errorExample(code: ErrorCode, status: number) {
  const messages: Partial<Record<ErrorCode, string>> = {
    missing_token: "Send an API key: Authorization: Bearer <API key>, or X-API-Key: <API key>.",
    invalid_token: "The API key is not valid.",
    insufficient_permissions: "The API key lacks the scope this operation needs.",
    not_found: "The resource does not exist.",
    validation_error: "title must be 1 to 255 characters (got 256).",
    bad_request: "starts_at must be an RFC 3339 date-time with a time zone (for example 2026-03-02T10:00:00Z).",
    rate_limit_exceeded: "Rate limit of 1000 requests per minute exceeded. Retry in 30 s.",
  };
  const details: Record<string, unknown> = { request_id: HEADERS["X-Request-Id"]!.example };
  if (code === "validation_error") {
    details.fields = ["title"];
    details.errors = [{ field: "title", rule: "length", message: "title must be 1 to 255 characters (got 256)", allowed: { min: 1, max: 255 } }];
  }
  if (status === OUTCOME_UNKNOWN_STATUS) Object.assign(details, OUTCOME_UNKNOWN_DETAILS);
  if (code === "bad_request") {
    details.fields = ["starts_at"];
    details.errors = [{ field: "starts_at", rule: "format", message: "starts_at must be an RFC 3339 date-time with a time zone (for example 2026-03-02T10:00:00Z)", allowed: "date-time" }];
  }
  return {
    summary: `${status} ${code}`,
    value: { error: { code, message: messages[code] ?? `An error with code ${code}.`, details } },
  };
}

function errorResponse(spec: ErrorResponseSpec) {
  const codes = errorCodesFor(spec.status);
  return {
    description: spec.description,
    headers: Object.fromEntries([
      ...spec.headers.map((name) => [name, ref("headers", headerComponentName(name))]),
      ...(spec.optionalHeaders ?? []).map((name) => [name, { ...HEADERS[name]!, required: false }]),
    ]),
    content: {
      "application/json": {
        schema: {
          allOf: [
            ref("schemas", "Error"),
            {
              type: "object",
              properties: { error: { type: "object", properties: { code: { enum: codes, description: `One of: ${codes.join(", ")}.` } } } },
            },
          ],
        },
        examples: Object.fromEntries(codes.map((code) => [code, errorExample(code, spec.status)])),
      },
    },
  };
}

/** `/v1/new-page/:id` → `/v1/new-page/{id}`; paths are documented without a trailing slash (it is optional everywhere). */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, "{$1}").replace(/(.)\/$/, "$1");
}

function pathParameters(path: string) {
  return pathParamNames(path).map((name) => ({
    name,
    in: "path",
    required: true,
    description: PATH_ID_DESCRIPTION,
    schema: { type: "string" },
    example: "01936f3e-8a4b-7c2d-9e1f-0a1b2c3d4e5f",
  }));
}

/** The request headers an operation reads: `Idempotency-Key` on a POST, `If-Match` on a write by id, `If-None-Match` on a read by id. */
function headerParameters(operation: PublicOperation) {
  const parameters = [];
  if (takesIdempotencyKey(operation)) {
    parameters.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description:
        "Makes a retry safe: the first answer to a key (per API key, for 24 hours) is replayed to every request with the same key and the same body, with `Idempotency-Replayed: true`, and the work is done once. The same key with another body, or once the API key's access changed (its scopes, its teams, the teams its creator sees), answers 422 `idempotency_key_reused`; while the first request runs, 409 `idempotency_key_in_use`. Answers that mean nothing was done (4xx, 503) free the key again.",
      schema: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: `^[${IDEMPOTENCY_KEY_CHARACTERS}]+$` },
      example: "8e03978e-40d5-43e8-bc93-6894a57f9324",
    });
  }
  if (writesConditionally(operation)) {
    parameters.push({
      name: "If-Match",
      in: "header",
      required: false,
      description: "Carry out the request only if the resource is still at one of these versions (its `ETag` values), or `*` for any: otherwise 412 `precondition_failed`, and nothing changes.",
      schema: { type: "string" },
      example: '"1767225600123456-01936f3e-8a4b-7c2d-9e1f-0a1b2c3d4e5f"',
    });
  }
  if (readsConditionally(operation)) {
    parameters.push({
      name: "If-None-Match",
      in: "header",
      required: false,
      description: "Answer 304 with no body when the resource's current `ETag` is one of these (or `*`).",
      schema: { type: "string" },
      example: '"1767225600123456-01936f3e-8a4b-7c2d-9e1f-0a1b2c3d4e5f"',
    });
  }
  return parameters;
}

/** The headers of an operation's success: every request's, its `ETag`, its `Location` when it creates, and the replay mark of a POST. */
function successHeaders(operation: PublicOperation) {
  const headers: Record<string, unknown> = Object.fromEntries(
    ["X-Request-Id", ...RATE_LIMIT_HEADERS].map((name) => [name, ref("headers", headerComponentName(name))]),
  );
  if (answersEntityTag(operation)) headers.ETag = ref("headers", "ETag");
  if (operation.success.status === 201 && resourcePathOf(operation.path)) headers.Location = ref("headers", "Location");
  if (takesIdempotencyKey(operation)) headers["Idempotency-Replayed"] = { ...HEADERS["Idempotency-Replayed"]!, required: false };
  return headers;
}

/** The operations of a method a path does not accept: documented so that tools know the 405 (no key is needed for it). */
function notAllowedOperation(path: string, method: string, allow: string[]) {
  const responses: Record<string, unknown> = {
    "405": ref("responses", METHOD_NOT_ALLOWED.name, `\`Allow: ${allow.join(", ")}\`.`),
  };
  const operation: Record<string, unknown> = {
    operationId: `${method}${path.replace(/\{(\w+)\}/g, "By-$1").split(/[^A-Za-z0-9]+/).filter(Boolean).map((part) => part[0]!.toUpperCase() + part.slice(1)).join("")}NotAllowed`,
    summary: `${method.toUpperCase()} is not allowed here`,
    description: `This path accepts ${allow.join(", ")}; ${method.toUpperCase()} answers 405 with \`Allow\`, before any key is checked.`,
    tags: ["Unsupported methods"],
    security: [],
    responses,
  };
  const parameters = pathParameters(path.replace(/\{(\w+)\}/g, ":$1"));
  if (parameters.length > 0) operation.parameters = parameters;
  if (method === "options") {
    operation.summary = "CORS preflight";
    operation.description =
      "A CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) answers 204 before any key is checked and counts against none; it carries the `Access-Control-Allow-*` headers when the origin is in `CORS_ALLOWED_ORIGINS`. Any other `OPTIONS` answers 405 with `Allow`.";
    responses["204"] = { description: "The preflight's answer; no body.", headers: { "X-Request-Id": ref("headers", headerComponentName("X-Request-Id")) } };
  }
  return operation;
}

function queryParameters(query: JsonSchema) {
  const properties = (query.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((query.required ?? []) as string[]);
  return Object.entries(properties).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return {
      name,
      in: "query",
      required: required.has(name),
      ...(typeof description === "string" ? { description } : {}),
      schema: rest,
    };
  });
}

/**
 * The OpenAPI 3.1.0 document of the public API, generated from the public
 * operation table and the TypeBox schemas it references (the gateway's
 * catch-all public handler means Elysia's own route list never sees these
 * operations).
 */
export function buildOpenApiDocument(operations: readonly PublicOperation[] = PUBLIC_OPERATION_LIST) {
  const schemas = createSchemaRegistry();
  schemas.use({ ...ErrorObject, title: "Error", description: "The body of every 4xx and 5xx response." });

  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    const path = openApiPath(operation.path);
    const item = (paths[path] ??= {});
    const successSchema = operation.success.schema ? schemas.use(operation.success.schema) : undefined;
    const bodySchema = operation.body ? schemas.use(operation.body) : undefined;
    const responses: Record<string, unknown> = {
      [operation.success.status]: {
        description: operation.success.description,
        headers: successHeaders(operation),
        ...(successSchema
          ? { content: { "application/json": { schema: successSchema, example: exampleOf(successSchema, schemas.components) } } }
          : {}),
      },
    };
    if (readsConditionally(operation)) {
      responses["304"] = {
        description: "`If-None-Match` names the current version: not modified, no body.",
        headers: Object.fromEntries(["X-Request-Id", ...RATE_LIMIT_HEADERS, "ETag"].map((name) => [name, ref("headers", headerComponentName(name))])),
      };
    }
    for (const [status, reasons] of operationErrors(operation)) {
      const spec = ERROR_RESPONSES.find((candidate) => candidate.status === status)!;
      responses[status] = ref("responses", spec.name, reasons.length > 0 ? reasons.join(" ") : undefined);
    }
    item[operation.method.toLowerCase()] = {
      operationId: operation.operationId,
      summary: operation.summary,
      description: `${operation.description}\n\nRequired scope: \`${operation.scope}\`.`,
      tags: [PUBLIC_SERVICES[operation.service].tag],
      security: [{ bearerAuth: [operation.scope] }, { apiKeyAuth: [operation.scope] }],
      "x-required-scope": operation.scope,
      "x-max-body-bytes": operation.maxBodyBytes,
      parameters: [
        ...pathParameters(operation.path),
        ...(operation.query ? queryParameters(schemas.inline(operation.query)) : []),
        ...headerParameters(operation),
      ],
      ...(bodySchema
        ? { requestBody: { required: true, content: { "application/json": { schema: bodySchema, example: exampleOf(bodySchema, schemas.components) } } } }
        : {}),
      responses,
    };
  }
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item) as { parameters: unknown[] }[]) {
      if (operation.parameters.length === 0) delete (operation as { parameters?: unknown }).parameters;
    }
  }
  // The unauthenticated paths answer the methods they do not accept as the API's paths do.
  Object.assign(paths, structuredClone(OPERATIONAL_PATHS));
  for (const [path, item] of Object.entries(paths)) {
    const allow = allowedMethods(Object.keys(item).map((method) => ({ method: method.toUpperCase() as PublicOperation["method"] })));
    for (const method of DESCRIBABLE_METHODS) {
      if (!Object.hasOwn(item, method)) item[method] = notAllowedOperation(path, method, allow);
    }
  }

  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: "Workspace API",
      version: API_VERSION,
      description: [
        "The public API of the workspace service: pages and calendar events.",
        "",
        "**Authentication.** Every operation needs an API key: `Authorization: Bearer <key>` (preferred) or `X-API-Key: <key>`; when both are sent, `Authorization` wins. Each operation names the scope it needs (`x-required-scope`); the key's effective permission is its scopes intersected with its creator's role.",
        "",
        "**Errors.** Every 4xx and 5xx body is the `Error` object; `error.code` is machine-readable; on a validation failure `error.details.fields` names the offending fields and `error.details.errors` says, per field, the rule that failed (`rule`), a sentence to act on (`message`) and what is accepted (`allowed`). An unknown path answers `404 not_found` (see `x-unrouted-responses`); a known path with a method it does not accept `405 method_not_allowed` with `Allow` (documented on each path, tag `Unsupported methods`). Neither needs a key nor carries rate-limit headers.",
        "",
        "**Safe retries.** Every `POST` takes an `Idempotency-Key` (1 to 255 visible ASCII characters): for 24 hours the first answer to a key is replayed, with `Idempotency-Replayed: true`, to any request of the same API key with the same key and body, and the work is done once. The same key with another body, or once the API key's access changed (its scopes, its teams, the teams its creator sees), answers `422 idempotency_key_reused`, and while the first request still runs `409 idempotency_key_in_use` with `Retry-After`. An answer that means nothing was done (4xx, `503`) frees the key; a `502` (the outcome unknown) is kept and replayed, since running the request again could do it twice.",
        "",
        "**Conditional requests.** A single page, calendar or event carries a strong `ETag` (from its id and `updated_at`) on GET, POST and PUT. `If-Match` on PUT or DELETE carries the request out only at that version, otherwise `412 precondition_failed`; `If-None-Match` on GET answers `304` with no body when nothing changed. Every `201` carries `Location`.",
        "",
        "**HEAD** is served wherever GET is: the same status and headers, no body, counted against the rate limit like the GET. **CORS**: browser origins listed in `CORS_ALLOWED_ORIGINS` may call the API; preflights are answered without a key and count against none, and the headers " + EXPOSED_HEADERS.map((name) => `\`${name}\``).join(", ") + " are exposed.",
        "",
        "**Query integers** (`page`, `per_page`) are decimal digits only: `0x10`, `1e1`, `+1`, ` 1`, `1.0` are refused naming the parameter; any number of digits is an integer (a page past the end answers empty `data`, a `per_page` above 100 is clamped, however large). Date-times are RFC 3339; a leap second (`23:59:60`) is accepted and rolled forward to the next minute's first instant.",
        "",
        "**Rate limit.** 1000 requests a minute per key by default, in clock-minute windows. Every response to an authenticated request carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`; a `429` also `Retry-After`. Every response carries `X-Request-Id`.",
        "",
        "**Paths.** A trailing slash is optional on every path (`/api/calendar/events/` as the specification writes it and `/api/calendar/events` are the same); this document writes every path without one.",
      ].join("\n"),
    },
    servers: [{ url: "/", description: "The gateway that serves this document (by default http://localhost:8080)." }],
    security: [{ bearerAuth: [] }, { apiKeyAuth: [] }],
    tags: [
      ...Object.values(PUBLIC_SERVICES).map((service) => ({ name: service.tag, description: service.description })),
      { name: "Operations", description: "Unauthenticated paths: this document, the docs page, liveness and readiness." },
      { name: "Unsupported methods", description: "The methods each API path does not accept: 405 with `Allow`, before any key is checked (and the CORS preflight on `OPTIONS`)." },
    ],
    paths,
    components: {
      schemas: schemas.components,
      responses: Object.fromEntries([...ERROR_RESPONSES, UNKNOWN_PATH].map((spec) => [spec.name, errorResponse(spec)])),
      headers: Object.fromEntries(
        Object.entries(HEADERS).map(([name, header]) => [headerComponentName(name), { ...header, required: true }]),
      ),
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "`Authorization: Bearer <API key>`; the scheme name is case-insensitive. Keys look like `wsk_<secret>`.",
        },
        apiKeyAuth: {
          type: "apiKey",
          in: "header",
          name: "X-API-Key",
          description: "`X-API-Key: <API key>`, for clients that cannot set `Authorization`.",
        },
      },
    },
    "x-unrouted-responses": {
      "404": ref("responses", UNKNOWN_PATH.name),
    },
  };
}
export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

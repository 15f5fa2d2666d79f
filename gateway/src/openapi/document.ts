import {
  ERROR_CODES,
  ERROR_STATUS,
  ErrorObject,
  PATH_ID_DESCRIPTION,
  PUBLIC_OPERATION_LIST,
  PUBLIC_SERVICES,
  pathParamNames,
  type ErrorCode,
  type PublicOperation,
} from "@ws/shared";
import { createSchemaRegistry, exampleOf, type JsonSchema } from "./json-schema";
import { operationErrors } from "./operation-errors";
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
    description: "Requests left in the current window; never negative.",
    schema: { type: "integer", minimum: 0 },
    example: 999,
  },
  "X-RateLimit-Reset": {
    description: "Unix time (seconds) at which the current window ends; on a `key_suspended` 429, when the suspension ends (the moment `Retry-After` points to).",
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
    description: "The methods the path accepts.",
    schema: { type: "string" },
    example: "GET, POST",
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
  { status: 413, name: "PayloadTooLarge", description: "The request body is over the operation's limit.", headers: ["X-Request-Id", ...RATE_LIMIT_HEADERS] },
  { status: 431, name: "HeadersTooLarge", description: "The request headers are larger than 32 KiB. Answered before authentication.", headers: ["X-Request-Id"] },
  { status: 422, name: "ValidationFailed", description: "The request is well formed but breaks a rule; `details.fields` names the offending fields or parameters, and `details.errors` says per field which rule failed and what is allowed.", headers: ["X-Request-Id", ...RATE_LIMIT_HEADERS] },
  { status: 429, name: "TooManyRequests", description: "`rate_limit_exceeded`: the key used up its requests for this minute. `key_suspended`: the key went on sending far past its limit and is suspended for a while. Also `rate_limit_exceeded` for a client address that keeps failing authentication; that 429 has no key, so no `X-RateLimit-*` headers. Back off exponentially.", headers: ["X-Request-Id", "Retry-After"], optionalHeaders: RATE_LIMIT_HEADERS },
  { status: 500, name: "InternalError", description: "Something failed on the server. The body never carries stack traces or internals; quote `X-Request-Id` when reporting it.", headers: ["X-Request-Id"], optionalHeaders: RATE_LIMIT_HEADERS },
  { status: 502, name: "BadGateway", description: "An upstream service answered something the gateway could not pass on.", headers: ["X-Request-Id"], optionalHeaders: RATE_LIMIT_HEADERS },
  { status: 503, name: "ServiceUnavailable", description: "The request was not executed and will not be: an upstream service or its database is unreachable, the request could not be completed before its deadline, or (with `RATE_LIMIT_FAILURE_MODE=closed`) rate limiting is unavailable. Safe to retry after `Retry-After`.", headers: ["X-Request-Id"], optionalHeaders: ["Retry-After", ...RATE_LIMIT_HEADERS] },
  { status: 504, name: "OutcomeUnknown", description: "`outcome_unknown`: the service received the request but its answer never came (it did not answer in time, or its connection, or its database's during the commit, broke). The request may or may not have taken effect, and nothing of it takes effect after this answer: read the resource before repeating a create. `Retry-After` only on methods that are safe to repeat (GET, PUT, DELETE).", headers: ["X-Request-Id"], optionalHeaders: ["Retry-After", ...RATE_LIMIT_HEADERS] },
];
/** The unrouted 404 (unknown path) carries no rate-limit headers: it is answered before authentication. */
const UNKNOWN_PATH: ErrorResponseSpec = { status: 404, name: "UnknownPath", description: "No public path matches.", headers: ["X-Request-Id"] };

export function errorCodesFor(status: number): ErrorCode[] {
  const effective = status === 502 ? 503 : status;
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
  schemas.use({ ...ErrorObject, title: "Error", description: "The body of every 4xx and 5xx response (spec 2.6)." });

  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    const path = openApiPath(operation.path);
    const item = (paths[path] ??= {});
    const successSchema = operation.success.schema ? schemas.use(operation.success.schema) : undefined;
    const bodySchema = operation.body ? schemas.use(operation.body) : undefined;
    const responses: Record<string, unknown> = {
      [operation.success.status]: {
        description: operation.success.description,
        headers: Object.fromEntries(["X-Request-Id", ...RATE_LIMIT_HEADERS].map((name) => [name, ref("headers", headerComponentName(name))])),
        ...(successSchema
          ? { content: { "application/json": { schema: successSchema, example: exampleOf(successSchema, schemas.components) } } }
          : {}),
      },
    };
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
      parameters: [...pathParameters(operation.path), ...(operation.query ? queryParameters(schemas.inline(operation.query)) : [])],
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
        "**Errors.** Every 4xx and 5xx body is the `Error` object; `error.code` is machine-readable; on a validation failure `error.details.fields` names the offending fields and `error.details.errors` says, per field, the rule that failed (`rule`), a sentence to act on (`message`) and what is accepted (`allowed`). An unknown path answers `404 not_found`; a known path with another method `405 method_not_allowed` with `Allow` (neither carries rate-limit headers, see `x-unrouted-responses`).",
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
    ],
    paths: { ...paths, ...OPERATIONAL_PATHS },
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
      "405": ref("responses", "MethodNotAllowed"),
    },
  };
}
export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

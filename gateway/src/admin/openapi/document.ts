import { Elysia, type AnyElysia } from "elysia";
import { createSchemaRegistry, type JsonSchema } from "../../openapi/json-schema";
import { ADMIN_DOCUMENT_PATH, ADMIN_OPERATIONS, ADMIN_PREFIX, ADMIN_TAGS, type AdminOperationSpec } from "../operations";
import { adminOperationErrors } from "./operation-errors";

export { ADMIN_DOCUMENT_PATH };
export const ADMIN_DOCS_PATH = "/admin/docs";

type Json = Record<string, any>;

const INFO = {
  title: "Workspace API management",
  version: "1.0.0",
  description: [
    "The management API of the workspace gateway: workspaces, teams, members, API keys and the audit log.",
    "",
    "**Where.** Served on the gateway's internal port (`ADMIN_PORT`, default 8081), never on the public one; off (404) when `ADMIN_TOKEN` is not set.",
    "",
    "**Authentication.** `Authorization: Bearer <ADMIN_TOKEN>` on every operation. This document and the docs page need none.",
    "",
    "**Errors.** Every 4xx and 5xx body is the `Error` object. A validation failure (422, or 400 for a body that is not a JSON object) names the fields in `error.details.fields` and says per field, in `error.details.errors`, which rule failed and what is allowed. A known path asked with a method it does not accept answers `405 method_not_allowed` with `Allow`, before the token is checked.",
    "",
    "**Audit.** Every change is recorded in the audit log of its workspace, with the request id and a fingerprint of the admin credential.",
  ].join("\n"),
};

/** The operation table's entry behind each documented operation, found by its operationId. */
function specOf(operationId: string): AdminOperationSpec {
  const spec = (ADMIN_OPERATIONS as Record<string, AdminOperationSpec>)[operationId];
  if (!spec) throw new Error(`The management document has an operation ${operationId} that the table does not hold.`);
  return spec;
}

/** Only JSON goes over the wire; the plugin also lists form and text bodies for every route. */
function jsonContent(content: Json | undefined, use: (schema: JsonSchema) => JsonSchema): Json | undefined {
  const schema = content?.["application/json"]?.schema;
  return schema ? { "application/json": { schema: use(schema) } } : undefined;
}

/**
 * A schema as the API treats it, whenever the document is made: Elysia closes
 * a route's schemas in place (`additionalProperties: false`) once the route has
 * served, while it drops unknown fields rather than refusing them; so the
 * keyword is left out everywhere.
 */
function asDeclared(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === "additionalProperties" && value === false ? undefined : value)));
}

/**
 * Turns what @elysiajs/swagger generated into a valid OpenAPI 3.1.0 document:
 * TypeBox schemas become JSON Schema 2020-12 with named components, bodies
 * and answers are JSON only, each answer says why from the operation table,
 * and parameters carry a single example.
 */
function normalize(generated: Json): Json {
  const schemas = createSchemaRegistry();
  const use = (schema: JsonSchema) => schemas.use(asDeclared(schema) as never);
  const paths: Json = {};
  for (const [path, item] of Object.entries(generated.paths as Json)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      const spec = specOf(operation.operationId);
      const errors = adminOperationErrors(spec);
      const responses: Json = {};
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        // The plugin moves an answer schema's own keywords (its title) onto the response: back they go, so named schemas stay components.
        const own = { ...(typeof response.title === "string" ? { title: response.title } : {}), ...(typeof response.description === "string" ? { description: response.description } : {}) };
        const named = (schema: JsonSchema) => use({ ...schema, ...own });
        const content = jsonContent(response.content, named);
        responses[status] = {
          description: Number(status) === spec.success.status ? spec.success.description : (errors.get(Number(status)) ?? []).join(" ") || "An error.",
          ...(content ? { content } : {}),
        };
      }
      if (!responses[spec.success.status]) responses[spec.success.status] = { description: spec.success.description };
      // A query integer travels as digits (the mount reads them): the table's own schema says what it means.
      const declared = (name: string): JsonSchema | undefined => ((spec.query as Json | undefined)?.properties as Json | undefined)?.[name];
      const parameters = ((operation.parameters ?? []) as Json[]).map(({ examples, description, schema, ...parameter }) => ({
        ...parameter,
        ...(description ? { description } : {}),
        schema: use((parameter.in === "query" && declared(parameter.name)) || schema),
        ...(Array.isArray(examples) && examples.length > 0 ? { example: examples[0] } : {}),
      }));
      const body = operation.requestBody && jsonContent(operation.requestBody.content, use);
      (paths[path] ??= {})[method] = {
        operationId: operation.operationId,
        summary: operation.summary,
        description: operation.description,
        tags: operation.tags,
        ...(parameters.length > 0 ? { parameters } : {}),
        ...(body ? { requestBody: { required: !spec.bodyOptional, content: body } } : {}),
        responses,
      };
    }
  }
  return {
    openapi: "3.1.0",
    info: INFO,
    servers: [{ url: "/", description: "The gateway's internal port (by default http://localhost:8081)." }],
    security: [{ adminToken: [] }],
    tags: Object.entries(ADMIN_TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: schemas.components,
      securitySchemes: {
        adminToken: { type: "http", scheme: "bearer", description: "`Authorization: Bearer <ADMIN_TOKEN>`, the token the gateway was started with." },
      },
    },
  };
}

/**
 * The management API's OpenAPI document, generated by @elysiajs/swagger from
 * the management routes themselves (their schemas, declared statuses and
 * details). The plugin runs in an app of its own that is never served: its
 * page loads Swagger UI from a CDN, so the page served is ours.
 */
export async function buildAdminOpenApiDocument(managementRoutes: AnyElysia): Promise<Json> {
  // Loaded when the document is first asked for: kept out of every gateway's memory (about 3 MB) until then.
  const { swagger } = await import("@elysiajs/swagger");
  const generator = new Elysia()
    .use(swagger({ provider: "swagger-ui", path: "/generator", specPath: ADMIN_DOCUMENT_PATH }))
    .use(managementRoutes);
  const response = await generator.handle(new Request(`http://localhost${ADMIN_DOCUMENT_PATH}`));
  if (!response.ok) throw new Error(`@elysiajs/swagger answered ${response.status} for the management document.`);
  return normalize((await response.json()) as Json);
}

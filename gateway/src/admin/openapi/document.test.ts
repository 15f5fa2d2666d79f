import { afterAll, describe, expect, test } from "bun:test";
import { validate } from "@readme/openapi-parser";
import postgres from "postgres";
import { createLogger } from "@ws/shared";
import { adminRoutes } from "..";
import { createMemoryAuthFailureLimiter } from "../../ratelimit/auth-failure-limiter";
import { openApiPath } from "../../openapi/document";
import { ADMIN_OPERATIONS, ADMIN_PREFIX, type AdminOperationSpec } from "../operations";
import { buildAdminOpenApiDocument } from "./document";
import { adminOperationErrors } from "./operation-errors";

// Nothing here reaches a database: requests that would are refused before, or fail, which is all the routes need to have served.
const sql = postgres("postgres://unused@127.0.0.1:9/unused", { max: 1, connect_timeout: 1 });
afterAll(() => sql.end());
const token = "t".repeat(24);
const routes = () =>
  adminRoutes(
    { sql, epochs: { publish: async () => true }, keyPrefix: "wsk", logger: createLogger("test", "silent"), serviceData: { purgeWorkspace: async () => ({}) } },
    { adminToken: token, failures: createMemoryAuthFailureLimiter(100), clientAddressOf: () => "127.0.0.1" },
  );

describe("the management OpenAPI document", () => {
  test("when generated from the management routes, then it is valid OpenAPI 3.1.0 and holds exactly the table's operations with their derived statuses", async () => {
    const document = await buildAdminOpenApiDocument(routes());
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(document.openapi).toBe("3.1.0");
    const documented = Object.entries(document.paths as Record<string, Record<string, { operationId: string; responses: object }>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => `${operation.operationId} ${method.toUpperCase()} ${path} ${Object.keys(operation.responses).sort()}`),
    );
    const table = Object.entries(ADMIN_OPERATIONS as Record<string, AdminOperationSpec>).map(
      ([id, operation]) =>
        `${id} ${operation.method} ${ADMIN_PREFIX}${openApiPath(operation.path)} ${[operation.success.status, ...adminOperationErrors(operation).keys()].map(String).sort()}`,
    );
    expect(documented.sort()).toEqual(table.sort());
  });

  test("when a list takes page and per_page, then the document says they are integers of at least 1 with their defaults, as the table does", async () => {
    const document = await buildAdminOpenApiDocument(routes());
    const parameters = document.paths[`${ADMIN_PREFIX}/workspaces`].get.parameters as { name: string; schema: Record<string, unknown> }[];
    const schemaOf = (name: string) => parameters.find((parameter) => parameter.name === name)!.schema;
    expect(schemaOf("page")).toMatchObject({ type: "integer", minimum: 1, default: 1 });
    expect(schemaOf("per_page")).toMatchObject({ type: "integer", minimum: 1, default: 20 });
  });

  test("when the routes have served requests, then the document generated afterwards is the same", async () => {
    const before = JSON.stringify(await buildAdminOpenApiDocument(routes()));
    const app = routes();
    for (const [method, path, body] of [
      ["POST", "/workspaces", { name: "x" }],
      ["PATCH", "/workspaces/x/members/y", { role: "owner" }],
      ["POST", "/workspaces/x/api-keys/y/rotate", {}],
      ["GET", "/workspaces/x/audit-log?page=1", undefined],
    ] as const) {
      await app.handle(
        new Request(`http://localhost${ADMIN_PREFIX}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: body && JSON.stringify(body),
        }),
      );
    }
    expect(JSON.stringify(await buildAdminOpenApiDocument(routes()))).toBe(before);
  });

  test("when an operation is documented, then its error answers use the Error body and say why", async () => {
    const document = await buildAdminOpenApiDocument(routes());
    const rotate = document.paths[`${ADMIN_PREFIX}/workspaces/{ws}/api-keys/{id}/rotate`].post;
    expect(rotate.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ApiKeyWithSecret" });
    expect(rotate.responses["422"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
    expect(rotate.responses["422"].description).toContain("`one_only`");
    expect(rotate.requestBody.content).toEqual({ "application/json": { schema: { $ref: "#/components/schemas/RotateApiKeyBody" } } });
    expect(document.components.schemas.Error.properties.error.properties.details.properties.errors.items).toEqual({ $ref: "#/components/schemas/FieldError" });
  });
});

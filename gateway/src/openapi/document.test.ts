import { describe, expect, test } from "bun:test";
import { validate } from "@readme/openapi-parser";
import { PUBLIC_OPERATION_LIST, PlainAnswer, toResponse } from "@ws/shared";
import { publicDocumentation } from ".";
import { DOCS_ASSETS } from "./docs-page";
import { buildOpenApiDocument, openApiPath } from "./document";

const document = buildOpenApiDocument();

describe("the OpenAPI document", () => {
  test("when generated, then it is a valid OpenAPI 3.1.0 document of version 1.0.0", async () => {
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe("1.0.0");
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  test("when generated, then every public route is an operation with its scope and both security schemes", () => {
    for (const route of PUBLIC_OPERATION_LIST) {
      const operation = (document.paths as Record<string, Record<string, any>>)[openApiPath(route.path)]?.[route.method.toLowerCase()];
      expect(operation?.operationId).toBe(route.operationId);
      expect(operation["x-required-scope"]).toBe(route.scope);
      expect(operation.security).toEqual([{ bearerAuth: [route.scope] }, { apiKeyAuth: [route.scope] }]);
      for (const status of ["401", "403", "429", "500", "502", "503", String(route.success.status)]) expect(operation.responses[status]).toBeDefined();
    }
  });

  test("when a POST documents Idempotency-Key, then its pattern refuses what the gateway refuses (a space) and takes every visible character", () => {
    const parameters = (document.paths as Record<string, Record<string, any>>)["/v1/new-page"]!.post.parameters as { name: string; schema: { pattern: string } }[];
    const pattern = new RegExp(parameters.find((parameter) => parameter.name === "Idempotency-Key")!.schema.pattern);
    expect(["a b", "tab\there", "é"].map((key) => pattern.test(key))).toEqual([false, false, false]);
    expect(pattern.test("!~8e03978e-40d5-43e8-bc93-6894a57f9324")).toBe(true);
  });

  test("when a schema is named, then it is a component and no TypeBox $id is left", () => {
    const text = JSON.stringify(document);
    expect(text).not.toContain('"$id"');
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(["Error", "Page", "PageList", "CalendarEvent"]));
  });
});

describe("the documentation routes", () => {
  const answers = publicDocumentation();
  const app = { handle: async (request: Request) => toResponse((await answers(request)) ?? new PlainAnswer(404, [], null)) };

  test("when /docs is fetched, then the page loads only same-origin assets", async () => {
    const response = await app.handle(new Request("http://localhost/docs"));
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    for (const [, path] of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
      const asset = await app.handle(new Request(`http://localhost${path}`));
      expect(`${path} ${asset.status}`).toBe(`${path} 200`);
    }
  });

  test("when every swagger-ui asset is fetched, then the gateway serves it from the npm package", async () => {
    for (const name of Object.keys(DOCS_ASSETS)) {
      const response = await app.handle(new Request(`http://localhost/docs/assets/${name}`));
      expect(response.status).toBe(200);
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  });

  test("when /openapi.json is fetched, then it is the generated document", async () => {
    const response = await app.handle(new Request("http://localhost/openapi.json"));
    expect(await response.json()).toEqual(JSON.parse(JSON.stringify(document)));
  });
});

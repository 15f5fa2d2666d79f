import { beforeAll, describe, expect, test } from "bun:test";
import { validate } from "@readme/openapi-parser";
import { ADMIN_OPERATIONS, ADMIN_PREFIX } from "../../../gateway/src/admin/operations";
import { openApiPath } from "../../../gateway/src/openapi/document";
import { CHROMIUM, hasChromium, renderDocsPage } from "../../harness/docs-browser";
import { lintOpenApi } from "../../harness/openapi-lint";
import { sharedSystem, type TestSystem } from "../../harness/system";

if (!hasChromium) console.warn(`Skipping the /admin/docs browser test: ${CHROMIUM} is absent (install it with: apt-get install -y chromium).`);

let system: TestSystem;
beforeAll(async () => {
  system = await sharedSystem();
});

async function servedDocument() {
  const response = await fetch(`${system.adminUrl}/admin/v1/openapi.json`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("application/json");
  return response.json();
}

describe("the management API's OpenAPI document", () => {
  test("when /admin/v1/openapi.json is fetched on the internal port without the token, then it is valid OpenAPI 3.1.0 with every management operation", async () => {
    const document = await servedDocument();
    expect(document.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(document));
    expect(result.valid ? [] : result.errors).toEqual([]);
    const documented = Object.entries(document.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => `${operation.operationId} ${method.toUpperCase()} ${path}`),
    );
    const table = Object.entries(ADMIN_OPERATIONS).map(([id, operation]) => `${id} ${operation.method} ${ADMIN_PREFIX}${openApiPath(operation.path)}`);
    expect(documented.sort()).toEqual(table.sort());
  });

  test("when it is linted with redocly, then there are no errors", async () => {
    const report = await lintOpenApi(await servedDocument());
    expect(report.errors).toEqual([]);
    expect(report.exitCode, report.stderr).toBe(0);
  });

  test("when the public port is asked for the management document or page, then they are not there", async () => {
    for (const path of ["/admin/v1/openapi.json", "/admin/docs"]) expect((await fetch(`${system.baseUrl}${path}`)).status).toBe(404);
  });

  test("when /admin/docs is fetched, then the page and everything it loads come from the gateway itself", async () => {
    const response = await fetch(`${system.adminUrl}/admin/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toContain("default-src 'self'");
    const html = await response.text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    for (const [, path] of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
      const asset = await fetch(`${system.adminUrl}${path}`);
      expect(`${path} ${asset.status}`).toBe(`${path} 200`);
    }
    expect(await (await fetch(`${system.adminUrl}/admin/docs/assets/docs-init.js`)).text()).toContain('"/admin/v1/openapi.json"');
  });

  test.skipIf(!hasChromium)("when /admin/docs is opened in headless Chromium, then the management operations are listed and nothing is fetched from elsewhere", async () => {
    const { paths, text, failures, requested } = await renderDocsPage(`${system.adminUrl}/admin/docs`);
    expect(paths).toEqual(
      expect.arrayContaining(["/admin/v1/workspaces", "/admin/v1/workspaces/{ws}", "/admin/v1/workspaces/{ws}/api-keys/{id}/rotate", "/admin/v1/workspaces/{ws}/audit-log"]),
    );
    for (const summary of ["List workspaces", "Delete a workspace", "Rotate an API key", "Read the audit log"]) expect(text).toContain(summary);
    expect(failures).toEqual([]);
    const origin = new URL(system.adminUrl).origin;
    expect(requested.filter((url) => !url.startsWith(origin) && !url.startsWith("data:"))).toEqual([]);
  });
});

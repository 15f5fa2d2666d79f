import { describe, expect, test } from "bun:test";
import { validate } from "@readme/openapi-parser";
import { lintOpenApi } from "../../harness/openapi-lint";
import { sharedSystem } from "../../harness/system";

async function servedDocument() {
  const system = await sharedSystem();
  const response = await fetch(`${system.baseUrl}/openapi.json`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("application/json");
  return response.json();
}

describe("the served OpenAPI document", () => {
  test("when /openapi.json is fetched without a key, then it is a valid OpenAPI 3.1.0 document, version 1.0.0", async () => {
    const document = await servedDocument();
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe("1.0.0");
    const result = await validate(document);
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  test("when it is linted with redocly, then there are no errors", async () => {
    const report = await lintOpenApi(await servedDocument());
    expect(report.errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(report.exitCode, report.stderr).toBe(0);
  });
});

import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validate } from "@readme/openapi-parser";
import { sharedSystem } from "../../harness/system";

const ROOT = join(import.meta.dir, "../../..");

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
    const file = join(mkdtempSync(join(tmpdir(), "openapi-")), "openapi.json");
    writeFileSync(file, JSON.stringify(await servedDocument(), null, 2));
    const lint = Bun.spawn([join(ROOT, "node_modules/.bin/redocly"), "lint", file, "--format=json"], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    const [output, errors, code] = await Promise.all([new Response(lint.stdout).text(), new Response(lint.stderr).text(), lint.exited]);
    const report = JSON.parse(output.slice(output.indexOf("{"))) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; severity: string; message: string }[] };
    const problems = report.problems.filter((problem) => problem.severity === "error");
    expect(problems).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(code, errors).toBe(0);
  });
});

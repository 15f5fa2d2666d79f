import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");

export interface LintReport {
  errors: { ruleId: string; message: string }[];
  totals: { errors: number; warnings: number };
  exitCode: number;
  stderr: string;
}

/** Lints an OpenAPI document with redocly and the repository's redocly.yaml. */
export async function lintOpenApi(document: unknown): Promise<LintReport> {
  const file = join(mkdtempSync(join(tmpdir(), "openapi-")), "openapi.json");
  writeFileSync(file, JSON.stringify(document, null, 2));
  const lint = Bun.spawn([join(ROOT, "node_modules/.bin/redocly"), "lint", file, "--format=json"], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
  const [output, stderr, exitCode] = await Promise.all([new Response(lint.stdout).text(), new Response(lint.stderr).text(), lint.exited]);
  const report = JSON.parse(output.slice(output.indexOf("{"))) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; severity: string; message: string }[] };
  return {
    errors: report.problems.filter((problem) => problem.severity === "error").map(({ ruleId, message }) => ({ ruleId, message })),
    totals: report.totals,
    exitCode,
    stderr,
  };
}

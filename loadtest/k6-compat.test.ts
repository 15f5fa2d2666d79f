/**
 * What would stop k6 v0.48 from loading the scripts, checked without k6 (CI
 * runs them with a real k6 when one is there, loadtest/ci.ts): syntax no newer
 * than ES2017 (k6 v0.48's runtime parses it), imports k6 can resolve, and
 * judge modules free of k6 so bun can run them. The type check (tsc -p
 * loadtest, lib ES2017, no DOM or Node globals) covers the APIs they call.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const ROOT = import.meta.dir;
const K6_FREE = ["lib/cleanup.js", "lib/config.js", "lib/mix.js", "lib/profiles.js", "lib/ratelimit-rules.js", "lib/shapes.js", "lib/summary.js", "lib/thresholds.js"];
const SCRIPTS = ["ratelimit.js", "mixed.js", "spike.js", "soak.js"];

function moduleFiles(): string[] {
  const top = readdirSync(ROOT).filter((f) => f.endsWith(".js"));
  const lib = readdirSync(join(ROOT, "lib")).filter((f) => f.endsWith(".js")).map((f) => "lib/" + f);
  return [...top, ...lib];
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
}

function importsOf(source: ts.SourceFile): string[] {
  const found: string[] = [];
  for (const statement of source.statements) {
    if ((ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      found.push(statement.moduleSpecifier.text);
    }
  }
  return found;
}

/** Syntax added after ES2017, with where it was found. */
function newerSyntax(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push(`${source.fileName}:${line + 1} ${what}`);
  };
  const visit = (node: ts.Node, inFunction: boolean) => {
    if ((ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node) || ts.isCallExpression(node)) && node.questionDotToken) at(node, "optional chaining");
    if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken.kind;
      if (op === ts.SyntaxKind.QuestionQuestionToken) at(node, "nullish coalescing");
      if (op === ts.SyntaxKind.QuestionQuestionEqualsToken || op === ts.SyntaxKind.BarBarEqualsToken || op === ts.SyntaxKind.AmpersandAmpersandEqualsToken) at(node, "logical assignment");
    }
    if (ts.isSpreadAssignment(node)) at(node, "object spread");
    if (ts.isBindingElement(node) && node.dotDotDotToken && ts.isObjectBindingPattern(node.parent)) at(node, "object rest");
    if (ts.isCatchClause(node) && !node.variableDeclaration) at(node, "optional catch binding");
    if (ts.isBigIntLiteral(node)) at(node, "BigInt literal");
    if (ts.isNumericLiteral(node) && node.getText(source).indexOf("_") !== -1) at(node, "numeric separator");
    if (ts.isPropertyDeclaration(node) || ts.isPrivateIdentifier(node)) at(node, "class field");
    if (ts.isForOfStatement(node) && node.awaitModifier) at(node, "for await");
    if (ts.isAwaitExpression(node) && !inFunction) at(node, "top-level await");
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) at(node, "dynamic import");
    if (ts.isRegularExpressionLiteral(node)) {
      const text = node.text;
      const flags = text.slice(text.lastIndexOf("/") + 1);
      if (/[sd]/.test(flags) || /\(\?<[=!]|\(\?<[A-Za-z]/.test(text)) at(node, "ES2018+ regular expression");
    }
    const entersFunction = inFunction || ts.isFunctionLike(node);
    ts.forEachChild(node, (child) => visit(child, entersFunction));
  };
  visit(source, false);
  return found;
}

/** k6's own globals, which bun does not have. */
function k6Globals(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && ["__ENV", "__VU", "__ITER", "open"].includes(node.text) && !ts.isPropertyAccessExpression(node.parent)) found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("the k6 scripts", () => {
  test("when every script and module is parsed, then none has a syntax error", () => {
    for (const file of moduleFiles()) {
      const source = parse(file) as ts.SourceFile & { parseDiagnostics: ts.Diagnostic[] };
      expect({ file, errors: source.parseDiagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")) }).toEqual({ file, errors: [] });
    }
  });

  test("when every script and module is read, then it uses no syntax newer than ES2017", () => {
    expect(moduleFiles().flatMap((file) => newerSyntax(parse(file)))).toEqual([]);
  });

  test("when a script imports, then it names a k6 module or a relative .js file", () => {
    const bad = moduleFiles().flatMap((file) =>
      importsOf(parse(file))
        .filter((spec) => !(spec === "k6" || spec.startsWith("k6/") || (/^\.\.?\//.test(spec) && spec.endsWith(".js"))))
        .map((spec) => `${file} imports ${spec}`),
    );
    expect(bad).toEqual([]);
  });

  test("when a judge module is read, then it uses nothing of k6, directly or through another module", () => {
    for (const file of K6_FREE) {
      for (const spec of importsOf(parse(file))) {
        expect({ file, spec, k6: spec === "k6" || spec.startsWith("k6/") }).toEqual({ file, spec, k6: false });
        if (spec.startsWith(".")) expect(K6_FREE).toContain(join("lib", spec).replace(/\\/g, "/"));
      }
      expect({ file, globals: k6Globals(parse(file)) }).toEqual({ file, globals: [] });
    }
  });

  test("when a script is read, then it exports options, a default function, a teardown that cleans up and a summary that writes the report", () => {
    for (const file of SCRIPTS) {
      const text = readFileSync(join(ROOT, file), "utf8");
      expect({
        file,
        options: /export const options\b/.test(text),
        main: /export default function\b/.test(text),
        teardown: /export function teardown\b/.test(text),
        handleSummary: /export function handleSummary\b/.test(text) && /(summaryOutputs|workloadSummary)\(/.test(text),
      }).toEqual({ file, options: true, main: true, teardown: true, handleSummary: true });
    }
  });

  test("when the module folder is listed, then every k6-free module is named as such here (so it stays k6-free)", () => {
    const lib = readdirSync(join(ROOT, "lib")).filter((f) => f.endsWith(".js")).map((f) => "lib/" + f);
    const k6Side = ["lib/api.js", "lib/workload.js"];
    expect(lib.filter((f) => !k6Side.includes(f)).sort()).toEqual([...K6_FREE].sort());
  });

  test("when the newer-syntax detector reads a line of ES2020, then it reports it (the detector itself works)", () => {
    const source = ts.createSourceFile("probe.js", "const a = b?.c ?? { ...d };\ntry { f() } catch { }\n", ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
    expect(newerSyntax(source).map((s) => s.replace(/^probe\.js:\d+ /, "")).sort()).toEqual(["nullish coalescing", "object spread", "optional catch binding", "optional chaining"]);
  });
});

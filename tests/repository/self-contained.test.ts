import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { REPO_ROOT } from "../../scripts/system";

/** Files git tracks (or would, being new and not ignored), so a clone has exactly these. */
function repositoryFiles(): string[] {
  return execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: REPO_ROOT, encoding: "utf8" })
    .split("\n")
    .filter((file) => file && existsSync(join(REPO_ROOT, file)));
}

const files = repositoryFiles();
const markdown = files.filter((file) => file.endsWith(".md"));
const read = (file: string) => readFileSync(join(REPO_ROOT, file), "utf8");

/** Relative link targets of a Markdown file: [text](target) and <a href>, without #anchors and web links. */
function localLinks(text: string): string[] {
  const targets = [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)|href="([^"]+)"/g)].map((match) => (match[1] ?? match[2])!);
  return targets.filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith("#")).map((target) => decodeURI(target.split("#")[0]!));
}

/** A citation of a section of some other document, which a clone of the repository does not have. */
const CITATION = /\b(contract|spec(ification)?)\s+(section\s+)?\d+(\.\d+)?\b|CONTRACT\.md|\.\.\/shared\//i;

describe("the repository stands alone", () => {
  test("when a Markdown file links a file, then the file is in the repository", () => {
    const broken: string[] = [];
    for (const file of markdown) {
      for (const target of localLinks(read(file))) {
        const path = resolve(REPO_ROOT, dirname(file), target);
        if (relative(REPO_ROOT, path).startsWith("..") || !existsSync(path)) broken.push(`${file} → ${target}`);
      }
    }
    expect(markdown.length).toBeGreaterThan(5);
    expect(broken).toEqual([]);
  });

  test("when a Markdown file states a rule, then it says the rule and cites no section of a document the reader does not have", () => {
    const citations = markdown.flatMap((file) =>
      read(file)
        .split("\n")
        .map((line, index) => ({ where: `${file}:${index + 1}`, line }))
        .filter(({ line }) => CITATION.test(line)),
    );
    expect(citations).toEqual([]);
  });

  test("the citation check finds the forms it is meant to find", () => {
    // Joined at run time, so that this file does not itself read as a citation.
    for (const line of [["(contract", "7)"], ["spec", "2.6"], ["see ..", "/shared/CONTRACT.md"], ["contract section", "8"], ["specification", "4.3"]].map(([first, rest]) => (rest!.startsWith("/") ? first! + rest : `${first} ${rest}`))) expect({ line, found: CITATION.test(line) }).toEqual({ line, found: true });
    for (const line of ["expand and contract: add columns first", "the OpenAPI specification", "spec-compliant"]) expect({ line, found: CITATION.test(line) }).toEqual({ line, found: false });
  });

  test("then it has a licence, a changelog, an example environment, a compose file and the Node.js version it needs", () => {
    for (const file of ["LICENSE", "CHANGELOG.md", ".env.example", "compose.yaml"]) expect({ file, present: files.includes(file) }).toEqual({ file, present: true });
    expect(read("LICENSE")).toStartWith("MIT License");
    const manifest = JSON.parse(read("package.json")) as { license: string; engines: Record<string, string> };
    expect(manifest.license).toBe("MIT");
    expect(manifest.engines.node).toMatch(/^>=\d+/);
  });

  test("then no scratch file sits at the root: every root file is a manifest, a configuration or a document", () => {
    const rootFiles = files.filter((file) => !file.includes("/") && statSync(join(REPO_ROOT, file)).isFile());
    const expected = /^(README\.md|CHANGELOG\.md|LICENSE|package(-lock)?\.json|tsconfig\.json|bunfig\.toml|deno\.json|redocly\.yaml|compose\.yaml|\.gitignore|\.dockerignore|\.env\.example|\.git)$/;
    expect(rootFiles.filter((file) => !expected.test(file))).toEqual([]);
  });
});

describe(".env.example", () => {
  const variables = [...read(".env.example").matchAll(/^# ([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]!);
  const readme = read("README.md");
  const sources = files.filter((file) => /\.(ts|js)$/.test(file) && !file.includes(".test.") && !file.startsWith("tests/")).map(read).join("\n");

  test("when it names a variable, then the README's configuration table describes it and the code reads it", () => {
    expect(variables.length).toBeGreaterThan(15);
    for (const name of variables) {
      expect({ name, inReadme: readme.includes(`| \`${name}\``) || readme.includes(`\`${name}\`, `) || readme.includes(`, \`${name}\` |`) }).toEqual({ name, inReadme: true });
      expect({ name, read: sources.includes(`"${name}"`) || sources.includes(`env.${name}`) }).toEqual({ name, read: true });
    }
  });
});

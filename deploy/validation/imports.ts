import { existsSync, readFileSync, realpathSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative } from "node:path";
import { repoRoot } from "./helm";

interface Manifest {
  name?: string;
  workspaces?: string[];
  dependencies?: Record<string, string>;
}

function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
}

/** The package a bare specifier names: "@scope/name/sub" -> "@scope/name", "name/sub" -> "name". */
export function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

function isBuiltin(specifier: string): boolean {
  return specifier.startsWith("node:") || specifier.startsWith("bun:") || specifier === "bun" || builtinModules.includes(specifier);
}

/** The nearest directory at or above `file` (inside the repository) with a package.json. */
function owningPackage(file: string): string {
  for (let dir = dirname(file); dir.startsWith(repoRoot); dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
  }
  return repoRoot;
}

export interface UndeclaredImport {
  file: string;
  specifier: string;
  package: string;
}

/**
 * Follows the static and dynamic imports of an entry file through the
 * repository (type-only imports are elided by the transpiler). Returns the
 * files it reached, every third-party package that no workspace lists in
 * `dependencies` (absent from a production install: the image would crash),
 * and every package a file uses that its own package.json does not list but
 * another workspace does (present only thanks to hoisting: fragile).
 */
export function undeclaredImports(entry: string): { files: string[]; undeclared: UndeclaredImport[]; hoisted: UndeclaredImport[] } {
  const root = readManifest(repoRoot);
  const workspaceDirs = (root.workspaces ?? []).map((workspace) => join(repoRoot, workspace));
  const workspaceNames = new Set(workspaceDirs.map((dir) => readManifest(dir).name).filter((name): name is string => !!name));
  const installed = new Set([...workspaceNames, ...workspaceDirs.flatMap((dir) => Object.keys(readManifest(dir).dependencies ?? {}))]);

  const transpiler = new Bun.Transpiler({ loader: "ts" });
  const seen = new Set<string>();
  const queue = [realpathSync(entry)];
  const problems: UndeclaredImport[] = [];
  const hoisted: UndeclaredImport[] = [];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!/\.[cm]?[jt]sx?$/.test(file)) continue;
    const owner = owningPackage(file);
    const declared = owner === repoRoot ? installed : new Set(Object.keys(readManifest(owner).dependencies ?? {}));
    for (const { path: specifier } of transpiler.scanImports(readFileSync(file, "utf8"))) {
      if (isBuiltin(specifier)) continue;
      const bare = !specifier.startsWith(".") && !specifier.startsWith("/");
      if (bare) {
        const use = { file: relative(repoRoot, file), specifier, package: packageName(specifier) };
        if (!installed.has(use.package)) {
          problems.push(use);
          continue;
        }
        if (!declared.has(use.package)) hoisted.push(use);
      }
      const resolved = realpathSync(Bun.resolveSync(specifier, dirname(file)));
      if (resolved.startsWith(repoRoot) && !resolved.includes("/node_modules/")) queue.push(resolved);
    }
  }
  return { files: [...seen].map((file) => relative(repoRoot, file)), undeclared: problems, hoisted };
}

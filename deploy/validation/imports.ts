import { existsSync, readFileSync, realpathSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative } from "node:path";
import { repoRoot } from "./helm";

interface Manifest {
  name?: string;
  workspaces?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
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

export interface ImportReport {
  /** Repository files the entry reaches. */
  files: string[];
  /** Packages in no workspace's `dependencies`, or optional ones imported statically: the image would crash. */
  undeclared: UndeclaredImport[];
  /** Packages a file's own package.json does not list but another workspace does (present only thanks to hoisting). */
  hoisted: UndeclaredImport[];
  /** Optional dependencies loaded by a dynamic import: absent from the image, loaded only when needed. */
  optional: UndeclaredImport[];
}

/**
 * Follows the static and dynamic imports of an entry file through the
 * repository (type-only imports are elided by the transpiler). The production
 * image installs `dependencies` and leaves out `optionalDependencies` (the
 * embedded database): those may only be imported dynamically, on the path
 * that needs them.
 */
export function undeclaredImports(entry: string): ImportReport {
  const root = readManifest(repoRoot);
  const workspaceDirs = (root.workspaces ?? []).map((workspace) => join(repoRoot, workspace));
  const manifests = workspaceDirs.map(readManifest);
  const workspaceNames = new Set(manifests.map((manifest) => manifest.name).filter((name): name is string => !!name));
  const installed = new Set([...workspaceNames, ...manifests.flatMap((manifest) => Object.keys(manifest.dependencies ?? {}))]);
  const optionalPackages = new Set(manifests.flatMap((manifest) => Object.keys(manifest.optionalDependencies ?? {})));

  const transpiler = new Bun.Transpiler({ loader: "ts" });
  const seen = new Set<string>();
  const queue = [realpathSync(entry)];
  const report: ImportReport = { files: [], undeclared: [], hoisted: [], optional: [] };
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!/\.[cm]?[jt]sx?$/.test(file)) continue;
    const owner = owningPackage(file);
    const manifest = owner === repoRoot ? undefined : readManifest(owner);
    const declared = manifest ? new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.optionalDependencies ?? {})]) : new Set([...installed, ...optionalPackages]);
    for (const { path: specifier, kind } of transpiler.scanImports(readFileSync(file, "utf8"))) {
      if (isBuiltin(specifier)) continue;
      const bare = !specifier.startsWith(".") && !specifier.startsWith("/");
      if (bare) {
        const use = { file: relative(repoRoot, file), specifier, package: packageName(specifier) };
        if (!installed.has(use.package)) {
          if (optionalPackages.has(use.package) && kind === "dynamic-import") report.optional.push(use);
          else report.undeclared.push(use);
          continue;
        }
        if (!declared.has(use.package)) report.hoisted.push(use);
      }
      const resolved = realpathSync(Bun.resolveSync(specifier, dirname(file)));
      if (resolved.startsWith(repoRoot) && !resolved.includes("/node_modules/")) queue.push(resolved);
    }
  }
  report.files = [...seen].map((file) => relative(repoRoot, file));
  return report;
}

import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { productionInstallPlan, type ParsedDockerfile } from "./dockerfile";
import { repoRoot } from "./helm";

/** The build context as .dockerignore admits it: the allow-list of top-level entries, less the excluded patterns. */
function contextFiles(): string[] {
  const rules = readFileSync(join(repoRoot, ".dockerignore"), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));
  if (rules[0] !== "*") throw new Error(".dockerignore no longer starts with * (an allow-list): update deploy/validation/image.ts");
  const allowed = rules.filter((rule) => rule.startsWith("!")).map((rule) => rule.slice(1).replace(/\/$/, ""));
  const excluded = rules.slice(1).filter((rule) => !rule.startsWith("!")).map((rule) => new Bun.Glob(rule));
  const files: string[] = [];
  for (const pattern of allowed) {
    for (const file of new Bun.Glob(existsSync(join(repoRoot, pattern)) && lstatSync(join(repoRoot, pattern)).isDirectory() ? `${pattern}/**` : pattern).scanSync({ cwd: repoRoot, dot: true })) {
      const parts = file.split("/");
      // A pattern like **/node_modules excludes everything below such a folder too.
      const hidden = excluded.some((glob) => parts.some((_, i) => glob.match(parts.slice(0, i + 1).join("/"))));
      if (!hidden) files.push(file);
    }
  }
  return files;
}

function link(source: string, target: string): void {
  mkdirSync(dirname(target), { recursive: true });
  const copy = Bun.spawnSync(["cp", "-al", source, target]);
  if (copy.exitCode !== 0) throw new Error(`cp -al ${source} ${target} failed: ${copy.stderr.toString()}`);
}

/**
 * Lays out what the image's /app holds, without Docker: the build context
 * (COPY . .) and node_modules with exactly the packages the deps stage's
 * production install resolves (hard links to this checkout's copies; the
 * workspaces as symlinks, as Bun's hoisted linker makes them). A package the
 * production install leaves out (PGlite, the tooling) is simply not there, so
 * a process that needs one fails as it would in the image.
 */
export function assembleImage(dockerfile: ParsedDockerfile, destination: string): { packages: string[] } {
  for (const file of contextFiles()) {
    mkdirSync(dirname(join(destination, file)), { recursive: true });
    linkSync(join(repoRoot, file), join(destination, file));
  }
  const workspaces = new Map<string, string>();
  const root = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { workspaces: string[] };
  for (const workspace of root.workspaces) {
    const name = (JSON.parse(readFileSync(join(repoRoot, workspace, "package.json"), "utf8")) as { name: string }).name;
    workspaces.set(name, workspace);
  }
  const packages = [...new Set(productionInstallPlan(dockerfile).map((entry) => entry.slice(0, entry.lastIndexOf("@"))))];
  for (const name of packages) {
    const target = join(destination, "node_modules", name);
    const workspace = workspaces.get(name);
    if (workspace) {
      mkdirSync(dirname(target), { recursive: true });
      symlinkSync(relative(dirname(target), join(destination, workspace)), target);
    } else if (existsSync(join(repoRoot, "node_modules", name))) {
      link(join(repoRoot, "node_modules", name), target);
    }
    // else: a second version of a package, nested inside the package that needs it and copied with it.
  }
  return { packages: readdirSync(join(destination, "node_modules")) };
}

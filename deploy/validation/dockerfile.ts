import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { repoRoot } from "./helm";

const require = createRequire(import.meta.url);
export const dockerDir = join(repoRoot, "deploy/docker");
export const dockerfilePath = join(dockerDir, "Dockerfile");

export interface LintIssue {
  line: string;
  content: string;
  title: string;
  description: string;
}

/** dockerfilelint with the rules in deploy/docker/.dockerfilelintrc, on a file or on Dockerfile text. */
export function lintDockerfile(source: { path: string } | { text: string }): LintIssue[] {
  let scratch: string | undefined;
  let path: string;
  if ("path" in source) {
    path = source.path;
  } else {
    scratch = mkdtempSync(join(tmpdir(), "workspace-api-dockerfile-"));
    path = join(scratch, "Dockerfile");
    writeFileSync(path, source.text);
  }
  try {
    const cli = require.resolve("dockerfilelint/bin/dockerfilelint");
    const result = Bun.spawnSync([process.execPath, cli, "--json", "--config", dockerDir, path]);
    const report = JSON.parse(result.stdout.toString()) as { files: { issues: LintIssue[] }[] };
    return report.files.flatMap((file) => file.issues);
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

export interface Instruction {
  line: number;
  keyword: string;
  args: string;
}

export interface Stage {
  name?: string;
  base: string;
  instructions: Instruction[];
}

export interface ParsedDockerfile {
  /** ARGs declared before the first FROM, with their defaults. */
  globalArgs: Map<string, string>;
  stages: Stage[];
}

/** Enough of the Dockerfile grammar for the checks below: comments, line continuations, instructions. */
export function parseDockerfile(text: string): ParsedDockerfile {
  const globalArgs = new Map<string, string>();
  const stages: Stage[] = [];
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const start = index + 1;
    let logical = lines[index]!;
    if (/^\s*(#|$)/.test(logical)) continue;
    while (logical.endsWith("\\") && index + 1 < lines.length) {
      logical = logical.slice(0, -1) + " " + lines[++index]!.trim();
    }
    const match = /^\s*(\w+)\s+(.*)$/.exec(logical);
    if (!match) throw new Error(`Dockerfile line ${start} is not an instruction: ${logical}`);
    const instruction = { line: start, keyword: match[1]!.toUpperCase(), args: match[2]!.trim() };
    if (instruction.keyword === "FROM") {
      const from = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      if (!from) throw new Error(`Dockerfile line ${start}: cannot read FROM ${instruction.args}`);
      stages.push({ base: from[1]!, name: from[2], instructions: [] });
    } else if (stages.length === 0) {
      if (instruction.keyword !== "ARG") throw new Error(`Dockerfile line ${start}: ${instruction.keyword} before the first FROM`);
      const [name, value = ""] = instruction.args.split("=", 2);
      globalArgs.set(name!, value);
    } else {
      stages[stages.length - 1]!.instructions.push(instruction);
    }
  }
  return { globalArgs, stages };
}

/** The image a FROM names, with ${ARG} defaults substituted; undefined when it names an earlier stage. */
export function externalBase(dockerfile: ParsedDockerfile, stage: Stage): string | undefined {
  const index = dockerfile.stages.indexOf(stage);
  if (dockerfile.stages.slice(0, index).some((earlier) => earlier.name === stage.base)) return undefined;
  return stage.base.replace(/\$\{?(\w+)\}?/g, (_, name: string) => dockerfile.globalArgs.get(name) ?? `<unset ${name}>`);
}

/** A base image pinned to an exact version (name:1.2.3[-variant]) or to a digest. */
export function isPinned(image: string): boolean {
  return /@sha256:[a-f0-9]{64}$/.test(image) || /:\d+\.\d+\.\d+(-[\w.]+)?$/.test(image);
}

/** The USER a stage runs as, following its chain of earlier stages; undefined = the base image's (root). */
export function effectiveUser(dockerfile: ParsedDockerfile, stage: Stage): string | undefined {
  const own = stage.instructions.filter((instruction) => instruction.keyword === "USER").pop();
  if (own) return own.args;
  const parent = dockerfile.stages.find((candidate) => candidate.name === stage.base);
  return parent ? effectiveUser(dockerfile, parent) : undefined;
}

/** The CMD of a stage as an argument list (exec form only), following earlier stages. */
export function effectiveCmd(dockerfile: ParsedDockerfile, stage: Stage): string[] | undefined {
  const own = stage.instructions.filter((instruction) => instruction.keyword === "CMD").pop();
  if (own) return JSON.parse(own.args) as string[];
  const parent = dockerfile.stages.find((candidate) => candidate.name === stage.base);
  return parent ? effectiveCmd(dockerfile, parent) : undefined;
}

/**
 * Replays the deps stage without Docker: copies the files its COPY lines name
 * into a scratch directory and runs its `bun install` with --dry-run (which
 * needs no network with a frozen lockfile). Returns the packages it would
 * install, as "name@version".
 */
export function productionInstallPlan(dockerfile: ParsedDockerfile): string[] {
  const deps = dockerfile.stages.find((stage) => stage.name === "deps");
  if (!deps) throw new Error("the Dockerfile has no deps stage");
  const scratch = mkdtempSync(join(tmpdir(), "workspace-api-deps-"));
  try {
    for (const copy of deps.instructions.filter((instruction) => instruction.keyword === "COPY")) {
      const parts = copy.args.split(/\s+/);
      const destination = parts.pop()!;
      for (const source of parts) {
        const target = destination.endsWith("/") ? join(scratch, destination, basename(source)) : join(scratch, destination);
        mkdirSync(dirname(target), { recursive: true });
        copyFileSync(join(repoRoot, source), target);
      }
    }
    const run = deps.instructions.find((instruction) => instruction.keyword === "RUN" && instruction.args.startsWith("bun install"));
    if (!run) throw new Error("the deps stage has no RUN bun install");
    const args = run.args.split(/\s+/).slice(1);
    const result = Bun.spawnSync([process.execPath, ...args, "--dry-run"], {
      cwd: scratch,
      env: { ...process.env, BUN_INSTALL_CACHE_DIR: join(scratch, ".cache") },
    });
    const output = result.stdout.toString() + result.stderr.toString();
    if (result.exitCode !== 0) throw new Error(`bun ${args.join(" ")} --dry-run failed:\n${output}`);
    return output
      .split("\n")
      .map((line) => /^\s+(@?[^@\s]+)@(\S+)$/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => `${match[1]}@${match[2]}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

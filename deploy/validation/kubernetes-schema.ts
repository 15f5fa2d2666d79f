import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { K8sObject } from "./helm";

const require = createRequire(import.meta.url);

function describe(object: K8sObject): string {
  return `${object.kind}/${object.metadata.name}`;
}

type ModelClass = new (data: unknown) => { validate(): void };

/**
 * Custom resources the chart renders, and the package holding their models:
 * @kubernetes-models/prometheus-operator is generated from the API types the
 * prometheus-operator CRDs are built from (ServiceMonitor, PodMonitor,
 * PrometheusRule, with their field patterns such as durations).
 */
const CUSTOM_RESOURCE_MODELS: Record<string, string> = {
  "monitoring.coreos.com/v1": "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1",
};

/** The module with the model class of one kind: per kind for custom resources, per API version for Kubernetes. */
function modelModule(object: K8sObject): string {
  const custom = CUSTOM_RESOURCE_MODELS[object.apiVersion];
  return custom ? `${custom}/${object.kind}` : `kubernetes-models/${object.apiVersion}`;
}

/**
 * Validates each object with its kubernetes-models class: required fields,
 * types, formats and enums of the Kubernetes OpenAPI schema, or of the CRD
 * for custom resources. These schemas accept unknown fields; typeCheckObjects
 * catches those.
 */
export async function validateWithModels(objects: K8sObject[]): Promise<string[]> {
  const problems: string[] = [];
  for (const object of objects) {
    let module: Record<string, unknown>;
    try {
      module = (await import(modelModule(object))) as Record<string, unknown>;
    } catch {
      problems.push(`${describe(object)}: no model for ${object.kind} in API version ${object.apiVersion}`);
      continue;
    }
    const Model = module[object.kind];
    if (typeof Model !== "function") {
      problems.push(`${describe(object)}: kubernetes-models has no kind ${object.kind} in ${object.apiVersion}`);
      continue;
    }
    try {
      new (Model as ModelClass)(structuredClone(object)).validate();
    } catch (error) {
      problems.push(`${describe(object)}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return problems;
}

const typesRoot = dirname(require.resolve("kubernetes-types/package.json"));
const tscEntry = require.resolve("typescript/lib/tsc.js");

/**
 * Where the TypeScript type of an object is: kubernetes-types per API version
 * ("apps/v1" -> apps/v1, "v1" -> core/v1, "networking.k8s.io/v1" ->
 * networking/v1, the type named as the kind), or the custom resource's model
 * module (the interface I<Kind>).
 */
function typeOf(object: K8sObject): { module: string; type: string } {
  const custom = CUSTOM_RESOURCE_MODELS[object.apiVersion];
  if (custom) return { module: Bun.resolveSync(`${custom}/${object.kind}`, import.meta.dir).replace(/\.js$/, ""), type: `I${object.kind}` };
  const parts = object.apiVersion.split("/");
  const [group, version] = parts.length === 1 ? ["core", parts[0]] : [parts[0]!.split(".")[0], parts[1]];
  return { module: join(typesRoot, group!, version!), type: object.kind };
}

export interface RenderedSet {
  /** A file-name-safe label, e.g. "default" or "production". */
  name: string;
  objects: K8sObject[];
}

/**
 * Type-checks every object as an object literal of its kubernetes-types type
 * with `tsc --noEmit --strict`. Excess-property checking turns every unknown
 * or misspelt field, at any depth, into a compile error, and every value of
 * the wrong type too. One tsc run covers all sets; returns problems per set.
 */
export function typeCheckObjects(sets: RenderedSet[]): Map<string, string[]> {
  const dir = mkdtempSync(join(tmpdir(), "workspace-api-k8s-types-"));
  try {
    const owners = new Map<string, { start: number; object: K8sObject }[]>();
    const files: string[] = [];
    const problems = new Map<string, string[]>();
    for (const set of sets) {
      problems.set(set.name, []);
      const imports = new Map<string, string>();
      const body: string[] = [];
      const spans: { start: number; object: K8sObject }[] = [];
      set.objects.forEach((object, index) => {
        const { module, type } = typeOf(object);
        if (!imports.has(module)) imports.set(module, `T${imports.size}`);
        spans.push({ start: body.length, object });
        body.push(`// ${describe(object)}`);
        body.push(...`export const object${index}: ${imports.get(module)}.${type} = ${JSON.stringify(object, null, 2)};`.split("\n"));
      });
      const header = [...imports].map(([module, alias]) => `import type * as ${alias} from ${JSON.stringify(module)};`);
      const offset = header.length + 1;
      owners.set(`${set.name}.ts`, spans.map((span) => ({ start: span.start + offset, object: span.object })));
      const file = join(dir, `${set.name}.ts`);
      writeFileSync(file, [...header, ...body, ""].join("\n"));
      files.push(file);
    }
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "Bundler", types: [], skipLibCheck: false },
        files,
      }),
    );
    const result = Bun.spawnSync([process.execPath, tscEntry, "-p", join(dir, "tsconfig.json"), "--pretty", "false"], { cwd: dir });
    const output = result.stdout.toString() + result.stderr.toString();
    let current: string[] | undefined;
    for (const line of output.split("\n")) {
      const match = /^(.+?)\((\d+),\d+\): error (TS\d+): (.*)$/.exec(line);
      if (match) {
        const [, path, lineNumber, code, message] = match;
        const fileName = path!.split(/[\\/]/).pop()!;
        const set = fileName.replace(/\.ts$/, "");
        const owner = [...(owners.get(fileName) ?? [])].reverse().find((span) => span.start <= Number(lineNumber));
        current = problems.get(set) ?? [];
        problems.set(set, current);
        current.push(`${owner ? describe(owner.object) : fileName}: ${code} ${message}`);
      } else if (current && /^\s+\S/.test(line)) {
        current[current.length - 1] += ` ${line.trim()}`;
      } else if (line.trim()) {
        current = undefined;
        throw new Error(`tsc failed outside the generated files:\n${output}`);
      }
    }
    if (result.exitCode !== 0 && [...problems.values()].every((list) => list.length === 0)) {
      throw new Error(`tsc exited with ${result.exitCode} without diagnostics:\n${output}`);
    }
    return problems;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

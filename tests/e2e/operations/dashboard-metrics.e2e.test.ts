import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chartDir, Helm, locateHelm } from "../../../deploy/validation/helm";
import { dashboardQueries, metricUses, ruleQueries, type MetricUse } from "../../../deploy/validation/promql";
import { seedTenantWithClient } from "../../harness/tenant";
import { sharedSystem } from "../../harness/system";
import { parsePrometheusText, type Family } from "./prometheus-format";

/**
 * The dashboard and the alert rules are only as good as the metrics behind
 * them: every metric they read must be exported by the processes they select
 * (by the `component` label; none selected means every process).
 */
const COMPONENTS = ["gateway", "pages", "calendar"] as const;
/** Starting the processes on embedded Postgres can take a minute on a busy machine. */
const HOOK_TIMEOUT_MS = 180_000;
/** Families whose samples appear only after an event this test does not cause (an upstream failure, a collection). */
const EVENT_DRIVEN = new Set(["upstream_errors_total", "process_gc_duration_seconds"]);

const location = locateHelm();
if ("skip" in location) console.warn(`[dashboard-metrics] the alert rules are not rendered: ${location.skip}`);

function rules(): { expr: string; where: string }[] {
  if (!("path" in location)) return [];
  const helm = new Helm(location.path);
  try {
    return ruleQueries(helm.template({ set: { "metrics.prometheusRule.enabled": "true" } }));
  } finally {
    helm.dispose();
  }
}

/** The family a sample name belongs to: histograms expose name_bucket, name_sum and name_count. */
function familyOf(families: Map<string, Family>, metric: string): Family | undefined {
  if (families.has(metric)) return families.get(metric);
  const base = metric.replace(/_(bucket|sum|count)$/, "");
  const family = families.get(base);
  return family?.type === "histogram" ? family : undefined;
}

describe("when the processes are scraped", () => {
  const scrapes = new Map<string, Map<string, Family>>();
  let uses: MetricUse[] = [];

  beforeAll(async () => {
    const system = await sharedSystem();
    const { call } = await seedTenantWithClient(system);
    // Traffic through every process, so that request histograms have samples.
    expect((await call("GET", "/v1/new-page")).status).toBe(200);
    expect((await call("GET", "/api/calendar/events")).status).toBe(200);
    expect((await fetch(`${system.baseUrl}/v1/new-page`)).status).toBe(401);
    for (const url of [system.baseUrl, system.pagesUrl, system.calendarUrl]) expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const urls = { gateway: system.adminUrl, pages: system.pagesUrl, calendar: system.calendarUrl };
    for (const component of COMPONENTS) scrapes.set(component, parsePrometheusText(await (await fetch(`${urls[component]}/metrics`)).text()));
    const dashboard = JSON.parse(readFileSync(join(chartDir, "dashboards/workspace-api.json"), "utf8"));
    uses = [...dashboardQueries(dashboard), ...rules()].flatMap(({ expr, where }) => metricUses(expr, where));
  }, HOOK_TIMEOUT_MS);

  test("then every metric the dashboard and the alert rules read is exported by each process they select", () => {
    expect(uses.length).toBeGreaterThan(30);
    const missing: string[] = [];
    for (const use of uses) {
      for (const component of use.components ?? COMPONENTS) {
        const family = familyOf(scrapes.get(component)!, use.metric);
        if (!family) missing.push(`${use.metric} (${use.where}) is not exported by ${component}`);
        else if (family.samples.length === 0 && !EVENT_DRIVEN.has(family.name)) missing.push(`${use.metric} (${use.where}) has no sample on ${component}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test("then the alert rules were part of the check", () => {
    if (!("path" in location)) return;
    const alerts = new Set(uses.filter((use) => use.where.startsWith("rule ")).map((use) => use.metric));
    expect([...alerts].sort()).toEqual(["http_request_duration_seconds_bucket", "http_requests_total", "ratelimit_limiter_mode", "readiness_changes_total"]);
  });

  test("then every process reports its memory, heap, event-loop delay, pool and readiness", () => {
    for (const component of COMPONENTS) {
      const families = scrapes.get(component)!;
      const value = (name: string) => families.get(name)?.samples[0]?.value;
      expect({ component, rss: value("process_resident_memory_bytes")! > 10_000_000 }).toEqual({ component, rss: true });
      expect({ component, heap: value("process_heap_used_bytes")! > 0 }).toEqual({ component, heap: true });
      expect({ component, loop: families.get("process_event_loop_delay_seconds")!.samples.length > 0 }).toEqual({ component, loop: true });
      expect({ component, open: value("db_pool_connections_open")! >= 1 }).toEqual({ component, open: true });
      expect({ component, ready: value("readiness_status") }).toEqual({ component, ready: 1 });
    }
    const mode = scrapes.get("gateway")!.get("ratelimit_limiter_mode")!.samples.filter((sample) => sample.value === 1).map((sample) => sample.labels.mode);
    expect(mode).toEqual([process.env.REDIS_URL ? "redis" : "memory"]);
    // The request path's connection and the one for everything else.
    if (process.env.REDIS_URL) expect(scrapes.get("gateway")!.get("redis_connections_open")!.samples[0]!.value).toBe(2);
  });
});

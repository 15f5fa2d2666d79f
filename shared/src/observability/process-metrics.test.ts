import { describe, expect, test } from "bun:test";
import { parsePrometheusText, sampleValue } from "../../../tests/e2e/operations/prometheus-format";
import { MetricsRegistry } from "./metrics";
import { registerProcessMetrics } from "./process-metrics";

const scrape = (registry: MetricsRegistry) => parsePrometheusText(registry.expose());
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("registerProcessMetrics", () => {
  test("when scraped, then memory, heap, CPU, start time and the runtime are exported", () => {
    const registry = new MetricsRegistry();
    const metrics = registerProcessMetrics(registry);
    try {
      const families = scrape(registry);
      expect(sampleValue(families, "process_resident_memory_bytes")).toBeGreaterThan(10 * 1024 * 1024);
      expect(sampleValue(families, "process_heap_used_bytes")).toBeGreaterThan(0);
      // Bun's heapTotal can read below its heapUsed (JavaScriptCore counts them differently): only their presence is checked.
      expect(sampleValue(families, "process_heap_total_bytes")).toBeGreaterThan(0);
      expect(sampleValue(families, "process_cpu_seconds_total")).toBeGreaterThan(0);
      expect(families.get("process_cpu_seconds_total")!.type).toBe("counter");
      expect(Math.abs(sampleValue(families, "process_start_time_seconds")! - (Date.now() - performance.now()) / 1000)).toBeLessThan(5);
      expect(sampleValue(families, "process_runtime_info", { runtime: "bun", version: Bun.version })).toBe(1);
    } finally {
      metrics.stop();
    }
  });

  test("when the event loop is blocked for 300 ms, then the delay histogram records it", async () => {
    const registry = new MetricsRegistry();
    const metrics = registerProcessMetrics(registry);
    try {
      await sleep(100);
      const blockedUntil = performance.now() + 300;
      while (performance.now() < blockedUntil) {
        // busy: nothing else can run
      }
      await sleep(100);
      const families = scrape(registry);
      expect(sampleValue(families, "process_event_loop_delay_seconds_count")).toBeGreaterThan(3);
      const late = sampleValue(families, "process_event_loop_delay_seconds_count")! - sampleValue(families, "process_event_loop_delay_seconds_bucket", { le: "0.1" })!;
      expect(late).toBe(1);
      expect(sampleValue(families, "process_event_loop_delay_seconds_sum")).toBeGreaterThan(0.25);
    } finally {
      metrics.stop();
    }
  });

  test("when the runtime collects garbage, then each collection is counted with its duration and kind", () => {
    const registry = new MetricsRegistry();
    const metrics = registerProcessMetrics(registry);
    try {
      const garbage: unknown[] = [];
      for (let i = 0; i < 200_000; i++) garbage.push({ i, text: `item ${i}` });
      // Collections during the allocation are drained first, so only the forced one is compared with the clock.
      const before = scrape(registry);
      const majorBefore = (name: string) => sampleValue(before, name, { kind: "major" }) ?? 0;
      const started = performance.now();
      Bun.gc(true);
      const wall = (performance.now() - started) / 1000;
      const after = scrape(registry);
      expect(sampleValue(after, "process_gc_duration_seconds_count", { kind: "major" })! - majorBefore("process_gc_duration_seconds_count")).toBeGreaterThanOrEqual(1);
      const seconds = sampleValue(after, "process_gc_duration_seconds_sum", { kind: "major" })! - majorBefore("process_gc_duration_seconds_sum");
      // JavaScriptCore may count concurrent work begun before the call: the bound only catches a wrong unit.
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThan(wall * 2 + 0.05);
      expect(garbage.length).toBe(200_000);
    } finally {
      metrics.stop();
    }
  });

  test("when a pool is given, then its open connections and its size are exported", () => {
    const registry = new MetricsRegistry();
    let open = 2;
    const metrics = registerProcessMetrics(registry, { database: { open: () => open, max: 5 } });
    try {
      expect(sampleValue(scrape(registry), "db_pool_connections_open")).toBe(2);
      open = 0;
      expect(sampleValue(scrape(registry), "db_pool_connections_open")).toBe(0);
      expect(sampleValue(scrape(registry), "db_pool_connections_max")).toBe(5);
    } finally {
      metrics.stop();
    }
  });
});

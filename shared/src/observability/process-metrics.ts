import process from "node:process";
import { clearInterval, setInterval } from "node:timers";
import { gcProfiler } from "../runtime/gc-profiler";
import type { MetricsRegistry } from "./metrics";

/** Seconds; from a scheduling hiccup to a loop stalled long enough to fail probes. */
const EVENT_LOOP_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Seconds; a young-generation collection takes about a millisecond, a full one tens to hundreds. */
const GC_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
/** How often the event loop is sampled: each tick measures how late the timer fired. */
const EVENT_LOOP_SAMPLE_MS = 25;
/** The GC profiler holds its records until drained; scrapes drain it too. */
const GC_DRAIN_MS = 10_000;

export interface PoolStats {
  /** Connections the pool has open now (connecting or connected). */
  open(): number;
  /** The pool's size limit (DB_POOL_MAX). */
  max: number;
}

function runtimeOf(): { runtime: string; version: string } {
  const versions = process.versions as Record<string, string | undefined>;
  if (versions.bun) return { runtime: "bun", version: versions.bun };
  if (versions.deno) return { runtime: "deno", version: versions.deno };
  return { runtime: "node", version: versions.node ?? "unknown" };
}

/**
 * Process metrics every process exports, the same on Bun and Deno: memory,
 * CPU, event-loop delay, garbage collections and, when it has one, the
 * state of its Postgres pool. The timers are unref'd: they never keep a
 * process alive. Call the returned `stop` when the process closes.
 */
export function registerProcessMetrics(registry: MetricsRegistry, options: { database?: PoolStats } = {}): { stop(): void } {
  const started = performance.timeOrigin / 1000;
  const { runtime, version } = runtimeOf();
  registry.collectSeries("process_runtime_info", "The runtime this process runs on, as labels; always 1.", "gauge", ["runtime", "version"], () => [{ labels: { runtime, version }, value: 1 }]);
  registry.collect("process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds.", "gauge", () => started);
  registry.collect("process_cpu_seconds_total", "User and system CPU time spent, in seconds.", "counter", () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  });
  // One reading per scrape, so that the three figures agree with each other.
  let memory = process.memoryUsage();
  registry.beforeExpose(() => {
    memory = process.memoryUsage();
  });
  registry.collect("process_resident_memory_bytes", "Resident memory size, in bytes.", "gauge", () => memory.rss);
  registry.collect("process_heap_used_bytes", "JavaScript heap in use, in bytes.", "gauge", () => memory.heapUsed);
  registry.collect("process_heap_total_bytes", "JavaScript heap reserved, in bytes.", "gauge", () => memory.heapTotal);

  const loopDelay = registry.histogram(
    "process_event_loop_delay_seconds",
    `How late a timer set every ${EVENT_LOOP_SAMPLE_MS} ms fired, in seconds: time the event loop was blocked (by code or by garbage collection).`,
    [],
    EVENT_LOOP_BUCKETS,
  );
  let expected = performance.now() + EVENT_LOOP_SAMPLE_MS;
  const sampler = setInterval(() => {
    const now = performance.now();
    loopDelay.observe(undefined, Math.max(0, now - expected) / 1000);
    expected = now + EVENT_LOOP_SAMPLE_MS;
  }, EVENT_LOOP_SAMPLE_MS);
  sampler.unref();

  const gcDurations = registry.histogram(
    "process_gc_duration_seconds",
    "Garbage collections and how long each took, in seconds, by kind (minor, major, incremental, weakcb). V8 (Deno) pauses for most of it; JavaScriptCore (Bun) runs part of it concurrently, so there it bounds the pause from above.",
    ["kind"],
    GC_BUCKETS,
  );
  const gc = gcProfiler();
  const drainGc = () => {
    for (const collection of gc.drain()) gcDurations.observe({ kind: collection.kind }, collection.seconds);
  };
  registry.beforeExpose(drainGc);
  const gcTimer = setInterval(drainGc, GC_DRAIN_MS);
  gcTimer.unref();

  const database = options.database;
  if (database) {
    registry.collect("db_pool_connections_open", "Connections to PostgreSQL this process's pool has open.", "gauge", () => database.open());
    registry.collect("db_pool_connections_max", "The most connections this process's pool opens (DB_POOL_MAX).", "gauge", () => database.max);
  }

  return {
    stop() {
      clearInterval(sampler);
      clearInterval(gcTimer);
      gc.stop();
    },
  };
}

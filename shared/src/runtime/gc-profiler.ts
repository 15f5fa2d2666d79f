import { GCProfiler } from "node:v8";

/**
 * Bun and Deno both implement node:v8's GCProfiler, but neither emits the "gc"
 * performance entries that Node's usual collectors listen to. Their `cost`
 * units differ: around a forced full collection that took 81 ms of wall time,
 * Bun reported 76,678 (microseconds, as Node documents) and Deno 85,410,824
 * (nanoseconds). gc-profiler.test.ts checks both against the wall clock.
 */
const COST_UNIT_SECONDS = "Deno" in globalThis ? 1e-9 : 1e-6;

export type GcKind = "minor" | "major" | "incremental" | "weakcb" | "other";

/** V8's collection types (JavaScriptCore's, as Bun names them), folded the way Node's collectors fold them. */
function kindOf(gcType: string): GcKind {
  if (gcType === "Scavenge" || gcType === "MinorMarkSweep" || gcType === "MinorMarkCompact") return "minor";
  if (gcType === "MarkSweepCompact") return "major";
  if (gcType === "IncrementalMarking") return "incremental";
  if (gcType === "ProcessWeakCallbacks") return "weakcb";
  return "other";
}

export interface GcCollection {
  kind: GcKind;
  seconds: number;
}

/**
 * Collects every garbage collection since the last drain. The profiler keeps
 * its records in memory until stopped, so draining restarts it: call `drain`
 * regularly (at each scrape and on a timer) to keep that bounded.
 */
export function gcProfiler() {
  let profiler: GCProfiler | undefined = new GCProfiler();
  profiler.start();
  return {
    drain(): GcCollection[] {
      if (!profiler) return [];
      const result = profiler.stop();
      profiler.start();
      return (result?.statistics ?? []).map((entry) => ({ kind: kindOf(entry.gcType), seconds: entry.cost * COST_UNIT_SECONDS }));
    },
    stop(): void {
      profiler?.stop();
      profiler = undefined;
    },
  };
}

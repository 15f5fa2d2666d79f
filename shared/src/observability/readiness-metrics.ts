import type { MetricsRegistry } from "./metrics";

/**
 * The process's own view of its readiness, as the kubelet's probes see it:
 * `readiness_status` is the last /readyz answer (1 ready, 0 not, -1 before the
 * first probe) and `readiness_changes_total` counts changes between answers,
 * so a pod that keeps dropping out of its Service shows as a rising counter.
 */
export function readinessMetrics(registry: MetricsRegistry): (ready: boolean) => void {
  let last: boolean | undefined;
  let changes = 0;
  registry.collect("readiness_status", "The last /readyz answer: 1 ready, 0 not ready, -1 not probed yet.", "gauge", () => (last === undefined ? -1 : last ? 1 : 0));
  registry.collect("readiness_changes_total", "Times the /readyz answer changed between ready and not ready.", "counter", () => changes);
  return (ready) => {
    if (last !== undefined && last !== ready) changes += 1;
    last = ready;
  };
}

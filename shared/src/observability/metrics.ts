/**
 * A small Prometheus registry (text exposition format 0.0.4) with no
 * dependencies, so that every process on Bun and Deno exports the same way.
 */

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Seconds; suits HTTP latencies from a millisecond to a proxied call at its timeout. */
export const DEFAULT_LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Labels = Record<string, string>;

interface Metric {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram";
  samples(): string[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

function labelText(names: readonly string[], values: readonly string[], extra?: [string, string]): string {
  const pairs = names.map((name, i) => `${name}="${escapeLabelValue(values[i]!)}"`);
  if (extra) pairs.push(`${extra[0]}="${escapeLabelValue(extra[1])}"`);
  return pairs.length ? `{${pairs.join(",")}}` : "";
}

/** Label values in declared order; a missing label is the empty string. */
function valuesOf(names: readonly string[], labels: Labels | undefined): string[] {
  return names.map((name) => labels?.[name] ?? "");
}

export interface Counter {
  inc(labels?: Labels, by?: number): void;
}

export interface Histogram {
  observe(labels: Labels | undefined, value: number): void;
}

export class MetricsRegistry {
  private readonly metrics: Metric[] = [];
  private readonly hooks: (() => void)[] = [];

  private register<T extends Metric>(metric: T, labelNames: readonly string[]): T {
    if (!METRIC_NAME.test(metric.name)) throw new Error(`invalid metric name ${metric.name}`);
    for (const label of labelNames) {
      if (!LABEL_NAME.test(label) || label.startsWith("__")) throw new Error(`invalid label name ${label}`);
    }
    if (this.metrics.some((existing) => existing.name === metric.name)) throw new Error(`metric ${metric.name} registered twice`);
    this.metrics.push(metric);
    return metric;
  }

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    const series = new Map<string, { values: string[]; count: number }>();
    const metric = {
      name,
      help,
      type: "counter" as const,
      samples: () => [...series.values()].map((s) => `${name}${labelText(labelNames, s.values)} ${formatValue(s.count)}`),
      inc(labels?: Labels, by = 1) {
        if (by < 0) throw new Error("a counter only rises");
        const values = valuesOf(labelNames, labels);
        const key = values.join("\u0000");
        const entry = series.get(key);
        if (entry) entry.count += by;
        else series.set(key, { values, count: by });
      },
    };
    return this.register(metric, labelNames);
  }

  /** A value read at scrape time (a state flag, or a counter kept elsewhere). */
  collect(name: string, help: string, type: "counter" | "gauge", read: () => number): void {
    this.register({ name, help, type, samples: () => [`${name} ${formatValue(read())}`] }, []);
  }

  /** Several labelled values read at scrape time, e.g. one series per state with the current one at 1. */
  collectSeries(name: string, help: string, type: "counter" | "gauge", labelNames: readonly string[], read: () => { labels: Labels; value: number }[]): void {
    const samples = () => read().map(({ labels, value }) => `${name}${labelText(labelNames, valuesOf(labelNames, labels))} ${formatValue(value)}`);
    this.register({ name, help, type, samples }, labelNames);
  }

  /** Runs before every exposition: for sources that must be drained into a histogram first. */
  beforeExpose(hook: () => void): void {
    this.hooks.push(hook);
  }

  histogram(name: string, help: string, labelNames: readonly string[] = [], buckets: readonly number[] = DEFAULT_LATENCY_BUCKETS): Histogram {
    if (labelNames.includes("le")) throw new Error("le is reserved for histogram buckets");
    const bounds = [...buckets].sort((a, b) => a - b);
    const series = new Map<string, { values: string[]; counts: number[]; sum: number; count: number }>();
    const metric = {
      name,
      help,
      type: "histogram" as const,
      samples: () => {
        const lines: string[] = [];
        for (const s of series.values()) {
          let cumulative = 0;
          bounds.forEach((bound, i) => {
            cumulative += s.counts[i]!;
            lines.push(`${name}_bucket${labelText(labelNames, s.values, ["le", formatValue(bound)])} ${cumulative}`);
          });
          lines.push(`${name}_bucket${labelText(labelNames, s.values, ["le", "+Inf"])} ${s.count}`);
          lines.push(`${name}_sum${labelText(labelNames, s.values)} ${formatValue(s.sum)}`);
          lines.push(`${name}_count${labelText(labelNames, s.values)} ${s.count}`);
        }
        return lines;
      },
      observe(labels: Labels | undefined, value: number) {
        const values = valuesOf(labelNames, labels);
        const key = values.join("\u0000");
        let entry = series.get(key);
        if (!entry) {
          entry = { values, counts: bounds.map(() => 0), sum: 0, count: 0 };
          series.set(key, entry);
        }
        // Buckets are stored per interval and summed at scrape time, keeping observe O(buckets) at worst.
        const index = bounds.findIndex((bound) => value <= bound);
        if (index >= 0) entry.counts[index]! += 1;
        entry.sum += value;
        entry.count += 1;
      },
    };
    return this.register(metric, labelNames);
  }

  /** The whole registry in the text exposition format, ending with a newline. */
  expose(): string {
    for (const hook of this.hooks) hook();
    const lines: string[] = [];
    for (const metric of this.metrics) {
      lines.push(`# HELP ${metric.name} ${escapeHelp(metric.help)}`);
      lines.push(`# TYPE ${metric.name} ${metric.type}`);
      lines.push(...metric.samples());
    }
    return lines.join("\n") + "\n";
  }

  response(): Response {
    return new Response(this.expose(), { headers: { "content-type": PROMETHEUS_CONTENT_TYPE } });
  }
}

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export interface HttpMetrics {
  registry: MetricsRegistry;
  /** One finished request; `route` is a template or operation name, never a raw path. */
  record(request: { route: string; method: string; status: number; seconds: number }): void;
}

/** The request counter and latency histogram every process exports under the same names. */
export function httpMetrics(registry = new MetricsRegistry()): HttpMetrics {
  const requests = registry.counter("http_requests_total", "HTTP requests answered, by route, method and status.", ["route", "method", "status"]);
  const duration = registry.histogram("http_request_duration_seconds", "Time to answer an HTTP request, in seconds, by route.", ["route"]);
  return {
    registry,
    record({ route, method, status, seconds }) {
      // Any token is a valid method: bound the label so a client cannot grow the series.
      requests.inc({ route, method: KNOWN_METHODS.has(method) ? method : "OTHER", status: String(status) });
      duration.observe({ route }, seconds);
    },
  };
}

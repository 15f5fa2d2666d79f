/**
 * Reads a `.cpuprofile` (the Chrome format that `bun --cpu-prof` and
 * `deno --cpu-prof` both write) and names where the samples fell: the functions
 * with the most self time, the functions with the most total time, and self
 * time by area (a package in node_modules, a folder of this repository, the
 * runtime's own code). Percentages are of the samples that were not idle;
 * given the requests served meanwhile, also µs per request.
 *
 * `bun bench/profile/summarize.ts <file.cpuprofile> [top] [requests]` prints one.
 */
import { readFileSync } from "node:fs";
import { REPO_ROOT } from "../../scripts/system/processes";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileEntry {
  function: string;
  location: string;
  self_pct: number;
  total_pct: number;
  /** Self and total time per request in µs, when the number of requests is known (one sample ≈ one interval of CPU). */
  self_us?: number;
  total_us?: number;
}
export interface ProfileSummary {
  samples: number;
  /** Samples that were not idle: what the percentages are of. */
  busy_samples: number;
  sampling_interval_us: number;
  /** Requests served while profiled, when known: µs figures are per request. */
  requests?: number;
  idle_pct: number;
  top_self: ProfileEntry[];
  top_total: ProfileEntry[];
  by_area: { area: string; self_pct: number }[];
}

const IDLE = new Set(["(idle)", "(root)"]);
const repo = `file://${REPO_ROOT}`;

function location(frame: CallFrame): string {
  if (!frame.url) return "[native]";
  const path = frame.url.startsWith(repo) ? frame.url.slice(repo.length) : frame.url.startsWith(REPO_ROOT) ? frame.url.slice(REPO_ROOT.length) : frame.url;
  return frame.lineNumber >= 0 ? `${path}:${frame.lineNumber + 1}` : path;
}

/** node_modules/<package>, a folder of this repository (two levels deep), or the runtime. */
function area(frame: CallFrame): string {
  if (frame.functionName === "(garbage collector)") return "garbage collector";
  if (frame.functionName === "(program)") return "runtime (native, outside JS)";
  if (!frame.url) return "runtime (native)";
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (modules) return modules[1]!;
  const path = location(frame);
  if (path.startsWith("/") || path.includes("://") || /^(node|bun|ext):/.test(path)) return "runtime (JS built-ins)";
  return path.split("/").slice(0, path.startsWith("services/") ? 4 : 3).join("/").replace(/:\d+$/, "");
}

const key = (frame: CallFrame) => `${frame.functionName || "(anonymous)"}\u0000${location(frame)}`;

export function summarize(profile: CpuProfile, top = 12, requests?: number, intervalUs = 1000): ProfileSummary {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const areas = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  for (const id of profile.samples) {
    const node = nodes.get(id)!;
    if (IDLE.has(node.callFrame.functionName)) {
      idle++;
      continue;
    }
    busy++;
    self.set(key(node.callFrame), (self.get(key(node.callFrame)) ?? 0) + 1);
    areas.set(area(node.callFrame), (areas.get(area(node.callFrame)) ?? 0) + 1);
    // Each function once per sample, however deep it recurses.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = nodes.get(at)!.callFrame;
      if (IDLE.has(frame.functionName)) continue;
      seen.add(key(frame));
    }
    for (const name of seen) total.set(name, (total.get(name) ?? 0) + 1);
  }
  const pct = (count: number) => Math.round((count / Math.max(1, busy)) * 1000) / 10;
  // One sample per interval of CPU the JS thread used (Bun records no idle samples). The gaps in timeDeltas are
  // wall time and grow when the machine is oversubscribed, so the nominal interval is the better measure.
  const interval = intervalUs;
  const perRequest = (count: number) => (requests ? { us: Math.round(((count * interval) / requests) * 10) / 10 } : undefined);
  const entries = (counts: Map<string, number>) =>
    [...counts.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name]) => {
        const [fn, loc] = name.split("\u0000") as [string, string];
        const selfCount = self.get(name) ?? 0;
        const totalCount = total.get(name) ?? 0;
        return {
          function: fn,
          location: loc,
          self_pct: pct(selfCount),
          total_pct: pct(totalCount),
          ...(requests ? { self_us: perRequest(selfCount)!.us, total_us: perRequest(totalCount)!.us } : {}),
        };
      });
  return {
    samples: profile.samples.length,
    busy_samples: busy,
    sampling_interval_us: Math.round(interval),
    ...(requests ? { requests } : {}),
    idle_pct: Math.round((idle / Math.max(1, profile.samples.length)) * 1000) / 10,
    top_self: entries(self),
    // The outermost frames (the event loop, the module) hold every sample: skip what is ≥ 99 %.
    top_total: entries(new Map([...total].filter(([, count]) => count < busy * 0.99))),
    by_area: [...areas.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, count]) => ({ area: name, self_pct: pct(count) })),
  };
}

export function summaryTable(name: string, summary: ProfileSummary): string {
  const lines = [
    `**${name}**: ${summary.busy_samples} busy samples${summary.requests ? ` over ${summary.requests} requests (≈ ${Math.round((summary.busy_samples * summary.sampling_interval_us) / summary.requests)} µs each)` : ""}. By area (self time): ${summary.by_area.map((a) => `${a.area} ${a.self_pct} %`).join(", ")}.`,
    "",
    "| self % | total % | ≈ self µs/req | ≈ total µs/req | function | location |",
    "|---:|---:|---:|---:|---|---|",
    ...summary.top_self.map((entry) => `| ${entry.self_pct} | ${entry.total_pct} | ${entry.self_us ?? ""} | ${entry.total_us ?? ""} | \`${entry.function}\` | ${entry.location} |`),
  ];
  return lines.join("\n");
}

if (import.meta.main) {
  const [file, top, requests] = process.argv.slice(2);
  if (!file) throw new Error("usage: bun bench/profile/summarize.ts <file.cpuprofile> [top] [requests served]");
  console.log(summaryTable(file, summarize(JSON.parse(readFileSync(file, "utf8")) as CpuProfile, Number(top ?? 20), requests ? Number(requests) : undefined)));
}

import { memoryAbuseReport } from "./memory-abuse";

/** The printed table; the README shows the same text. */
// The results object is built in run.ts and read back loosely here: the report only formats it.
type Results = Record<string, any>;

const mark = (met: boolean) => (met ? "met" : "NOT met");

export function markdownReport(r: Results): string {
  const m = r.machine;
  const lines: string[] = [];
  lines.push(`Machine: ${m.nproc} × ${m.cpu_model}, ${m.memory_gb} GB RAM, Bun ${m.bun}, PostgreSQL ${m.postgres}; run ${r.when}, ${r.total_seconds} s in all.`);
  lines.push("");
  lines.push(gatewayCostReport(r.gateway_cost));
  lines.push("");
  const f = r.full_path;
  lines.push(`| 2. Full path GET /v1/new-page/{id} (${f.connections} connections) | req/s | p50 ms | p99 ms |`);
  lines.push("|---|---:|---:|---:|");
  lines.push(`| through the gateway (Postgres, Redis) | ${f.gateway.rps} | ${f.gateway.p50_ms} | ${f.gateway.p99_ms} |`);
  lines.push(`| straight to pages, signed principal | ${f.direct.rps} | ${f.direct.p50_ms} | ${f.direct.p99_ms} |`);
  lines.push("");
  const s = r.stability;
  lines.push(`| 3. Stability (${s.seconds} s full path) | value |`);
  lines.push("|---|---:|");
  lines.push(`| req/s overall (p50 ${s.p50_ms} ms, p99 ${s.p99_ms} ms, non-2xx ${s.non2xx}, errors ${s.errors}) | ${s.rps} |`);
  lines.push(`| first 10 s / last 10 s req/s | ${s.first_10s_rps} / ${s.last_10s_rps} |`);
  const loads = s.load_average_1m as number[];
  lines.push(`| machine load average (1 min) at 10 s / 60 s | ${loads[9] ?? "?"} / ${loads.at(-1) ?? "?"} |`);
  lines.push(`| **last / first** (target ≥ 0.9: ${mark(s.ratio >= 0.9)}) | **${s.ratio}** |`);
  lines.push("");
  lines.push("| 5. Memory under full-path load | idle VmRSS MB | peak VmHWM MB | max sampled VmRSS MB |");
  lines.push("|---|---:|---:|---:|");
  for (const [name, peak] of Object.entries(r.memory_mb as Record<string, { idle_rss_mb: number; hwm_mb: number; sampled_rss_mb: number }>)) {
    const target = name === "gateway" ? ` (target < 120: ${mark(peak.hwm_mb < 120)})` : "";
    lines.push(`| ${name}${target} | ${peak.idle_rss_mb} | ${peak.hwm_mb} | ${peak.sampled_rss_mb} |`);
  }
  lines.push("");
  const e = r.exactness;
  lines.push(`| 6. Exactness (${e.replicas} replicas, limit ${e.limit}, ${e.requests} concurrent) | count |`);
  lines.push("|---|---:|");
  lines.push(`| 200 / 429 / other | ${e.succeeded} / ${e.rate_limited} / ${e.other} |`);
  lines.push(`| **over-admissions** (target 0: ${mark(e.over_admissions === 0)}) | **${e.over_admissions}** |`);
  lines.push("");
  const sc = r.scale;
  const names = Object.keys(sc.sizes[0].queries);
  lines.push(`4. Scale: first page of the list, ${sc.measured}; p50 / p95 ms.`);
  lines.push("");
  lines.push(`| query | ${sc.sizes.map((size: Results) => `${size.pages.toLocaleString("en")} pages`).join(" | ")} | p95 1M / 10k (target ≤ 2) |`);
  lines.push(`|---|${sc.sizes.map(() => "---:").join("|")}|---:|`);
  for (const name of names) {
    const ratio = sc.p95_ratio_1m_to_10k[name];
    lines.push(`| ${name} | ${sc.sizes.map((size: Results) => `${size.queries[name].p50_ms} / ${size.queries[name].p95_ms}`).join(" | ")} | ${ratio} ${mark(ratio <= 2)} |`);
  }
  lines.push(`| seeding (s) | ${sc.sizes.map((size: Results) => size.seed_seconds).join(" | ")} | |`);
  if (r.memory_abuse) {
    lines.push("");
    lines.push(memoryAbuseReport(r.memory_abuse));
  }
  return lines.join("\n");
}

/** Section 1's two tables: the ratio of the rounds and the CPU each process spent per request. */
export function gatewayCostReport(g: Results): string {
  const lines: string[] = [];
  lines.push(`| 1. Gateway cost (${g.connections} connections, ${g.seconds_per_run} s runs, a/b interleaved ×3, median) | req/s | p50 ms | p99 ms |`);
  lines.push("|---|---:|---:|---:|");
  lines.push(`| (a) bare Bun proxy → cheap upstream | ${g.floor.rps} | ${g.floor.p50_ms} | ${g.floor.p99_ms} |`);
  lines.push(`| (b) gateway (key, Redis limit, principal) → cheap upstream | ${g.gateway.rps} | ${g.gateway.p50_ms} | ${g.gateway.p99_ms} |`);
  lines.push(`| **ratio b/a**, median of the rounds (${g.round_ratios.join(", ")}); of the medians ${g.ratio_of_medians} | **${g.ratio}** | target ≥ 0.8: ${mark(g.ratio >= 0.8)} | |`);
  const cpu = g.cpu_us_per_request;
  const processes = Object.keys(cpu.gateway);
  lines.push("");
  lines.push(`| CPU µs per request (median of rounds) | ${processes.join(" | ")} |`);
  lines.push(`|---|${processes.map(() => "---:").join("|")}|`);
  lines.push(`| (a) floor | ${processes.map((name) => cpu.floor[name] ?? 0).join(" | ")} |`);
  lines.push(`| (b) gateway | ${processes.map((name) => cpu.gateway[name] ?? 0).join(" | ")} |`);
  return lines.join("\n");
}

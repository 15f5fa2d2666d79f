// @ts-check
/**
 * What every script's handleSummary() returns: a short text summary on the
 * console and a JSON report to keep and compare between runs. No k6 imports
 * (bun tests run it on recorded summaries), and no remote jslib: k6 cannot
 * fetch one where the load runs without internet.
 *
 * Exporting handleSummary replaces k6's own end-of-test summary, so the text
 * here is the whole console summary: the verdict, every threshold with the
 * figure it was judged on, every check, every metric.
 */

/**
 * One metric of k6's summary data; a submetric's name carries its tags,
 * e.g. "http_req_duration{scenario:mixed,op:pages.get}".
 * @typedef {Object} SummaryMetric
 * @property {string} type counter, gauge, rate or trend
 * @property {string} contains time, data or default
 * @property {Record<string, number>} values
 * @property {Record<string, { ok: boolean }>} [thresholds]
 */

/**
 * @typedef {Object} SummaryCheck
 * @property {string} name
 * @property {number} passes
 * @property {number} fails
 */

/**
 * @typedef {Object} SummaryGroup
 * @property {string} name
 * @property {SummaryGroup[]} groups
 * @property {SummaryCheck[]} checks
 */

/**
 * What k6 hands handleSummary(). Its setup_data is left out of every output:
 * it holds the run's keys.
 * @typedef {Object} SummaryData
 * @property {Record<string, SummaryMetric>} metrics
 * @property {SummaryGroup} root_group
 * @property {{ testRunDurationMs: number }} state
 * @property {{ summaryTrendStats?: string[] }} [options]
 */

/**
 * @typedef {Object} ThresholdResult
 * @property {string} metric
 * @property {string} expression e.g. "p(95)<300"
 * @property {boolean} ok
 * @property {string} stat the figure the expression reads, e.g. "p(95)"
 * @property {number | null} observed that figure in this run
 */

/**
 * @typedef {Object} ReportMeta
 * @property {string} script e.g. "mixed"
 * @property {Record<string, unknown>} settings the run's effective configuration, never a key or token
 * @property {string[]} [notes] what the run wants a reader to know (cleanup, skipped checks)
 */

const THRESHOLD = /^\s*([a-z]+(?:\(\d+(?:\.\d+)?\))?)\s*(<=|>=|==|===|!=|<|>)/;

/**
 * @param {SummaryData} data
 * @returns {ThresholdResult[]} ordered by metric name, broken ones first
 */
export function thresholdResults(data) {
  /** @type {ThresholdResult[]} */
  const results = [];
  for (const metric of Object.keys(data.metrics).sort()) {
    const entry = data.metrics[metric];
    if (!entry || !entry.thresholds) continue;
    for (const expression of Object.keys(entry.thresholds)) {
      const match = THRESHOLD.exec(expression);
      const stat = match && match[1] ? match[1] : "";
      const raw = entry.values[stat];
      results.push({ metric, expression, ok: Boolean(entry.thresholds[expression] && entry.thresholds[expression].ok), stat, observed: typeof raw === "number" ? raw : null });
    }
  }
  return results.filter((r) => !r.ok).concat(results.filter((r) => r.ok));
}

/**
 * @param {SummaryGroup} group
 * @returns {SummaryCheck[]}
 */
export function allChecks(group) {
  /** @type {SummaryCheck[]} */
  let found = group.checks.slice();
  for (const child of group.groups) found = found.concat(allChecks(child));
  return found;
}

/** Tags whose values get a table of their own: the operation of the mix, the phase of a spike or soak. */
export const TABLE_TAGS = ["op", "phase"];
/** Phases in the order they happen; anything else sorts after them by name. */
const PHASE_ORDER = ["baseline", "spike", "recovery", "early", "middle", "final"];

/**
 * @typedef {Object} TagRow
 * @property {string} tags the submetrics' tags, e.g. "scenario:mixed,op:pages.get"
 * @property {string} value the value of the table's tag, e.g. "pages.get"
 * @property {number} requests
 * @property {number} failedRate share of failed requests, 0 to 1
 * @property {number | null} checksRate share of passed checks, null when none
 * @property {number | null} med ms
 * @property {number | null} p95 ms
 * @property {number | null} p99 ms
 * @property {number | null} max ms
 * @property {string[]} broken the thresholds on these tags that failed, with their figures
 * @property {number} thresholds how many thresholds are on these tags
 */

/**
 * @param {string} name e.g. "http_req_duration{scenario:mixed,op:pages.get}"
 * @returns {string | null} "scenario:mixed,op:pages.get"
 */
function tagsOf(name) {
  const brace = name.indexOf("{");
  return brace === -1 || name.charAt(name.length - 1) !== "}" ? null : name.slice(brace + 1, -1);
}

/**
 * @param {string} tags
 * @param {string} tag
 * @returns {string | null}
 */
function tagValue(tags, tag) {
  for (const pair of tags.split(",")) {
    const colon = pair.indexOf(":");
    if (colon !== -1 && pair.slice(0, colon).trim() === tag) return pair.slice(colon + 1).trim();
  }
  return null;
}

/**
 * @param {string} name
 * @returns {boolean} whether the submetric belongs in a tag table rather than the lists
 */
function inTagTable(name) {
  const tags = tagsOf(name);
  return tags !== null && TABLE_TAGS.some((tag) => tagValue(tags, tag) !== null);
}

/**
 * One row per value of a tag (the operations of the mix, the phases of a
 * spike), from the submetrics k6 reports because thresholds are set on them.
 * @param {SummaryData} data
 * @param {string} tag
 * @returns {TagRow[]}
 */
export function tagRows(data, tag) {
  /** @type {TagRow[]} */
  const rows = [];
  const results = thresholdResults(data);
  for (const name of Object.keys(data.metrics).sort()) {
    const tags = tagsOf(name);
    const duration = data.metrics[name];
    if (name.indexOf("http_req_duration{") !== 0 || tags === null || !duration) continue;
    const value = tagValue(tags, tag);
    if (value === null) continue;
    const failed = data.metrics["http_req_failed{" + tags + "}"];
    const checks = data.metrics["checks{" + tags + "}"];
    /** @param {string} stat */
    const figure = (stat) => (typeof duration.values[stat] === "number" ? /** @type {number} */ (duration.values[stat]) : null);
    const own = results.filter((r) => tagsOf(r.metric) === tags);
    rows.push({
      tags,
      value,
      requests: failed ? (failed.values.passes || 0) + (failed.values.fails || 0) : 0,
      failedRate: failed ? failed.values.rate || 0 : 0,
      checksRate: checks && (checks.values.passes || 0) + (checks.values.fails || 0) > 0 ? checks.values.rate || 0 : null,
      med: figure("med"),
      p95: figure("p(95)"),
      p99: figure("p(99)"),
      max: figure("max"),
      broken: own.filter((r) => !r.ok).map((r) => describeThreshold(data, r)),
      thresholds: own.length,
    });
  }
  /** @param {string} value */
  const rank = (value) => (PHASE_ORDER.indexOf(value) === -1 ? PHASE_ORDER.length : PHASE_ORDER.indexOf(value));
  return rows.sort((a, b) => rank(a.value) - rank(b.value) || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

/**
 * "http_req_duration p(95)<300: p(95)=412ms"
 * @param {SummaryData} data
 * @param {ThresholdResult} r
 */
function describeThreshold(data, r) {
  const metric = data.metrics[r.metric];
  const base = r.metric.indexOf("{") === -1 ? r.metric : r.metric.slice(0, r.metric.indexOf("{"));
  const seen = r.observed === null || !metric ? "no samples" : r.stat + "=" + formatFigure(metric, r.stat, r.observed);
  return base + " " + r.expression + ": " + seen;
}

/**
 * @param {SummaryData} data
 * @returns {{ passed: boolean, broken: string[], total: number }}
 */
export function verdictOf(data) {
  const results = thresholdResults(data);
  const broken = results.filter((r) => !r.ok).map((r) => r.metric + " " + r.expression);
  return { passed: broken.length === 0, broken, total: results.length };
}

/** @param {number} ms */
export function formatDuration(ms) {
  if (!isFinite(ms)) return "-";
  if (ms === 0) return "0s";
  if (Math.abs(ms) < 1) return round(ms * 1000) + "µs";
  if (Math.abs(ms) < 1000) return round(ms) + "ms";
  if (Math.abs(ms) < 60000) return round(ms / 1000) + "s";
  const minutes = Math.floor(ms / 60000);
  return minutes + "m" + round((ms - minutes * 60000) / 1000) + "s";
}

/** @param {number} bytes */
function formatBytes(bytes) {
  if (bytes < 1000) return Math.round(bytes) + " B";
  if (bytes < 1e6) return round(bytes / 1000) + " kB";
  if (bytes < 1e9) return round(bytes / 1e6) + " MB";
  return round(bytes / 1e9) + " GB";
}

/** Three significant figures at most, two decimals at most. @param {number} value */
function round(value) {
  const abs = Math.abs(value);
  const decimals = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return String(Number(value.toFixed(decimals)));
}

/** @param {number} value */
function formatPercent(value) {
  return (value * 100).toFixed(2) + "%";
}

/**
 * A figure in the metric's own unit.
 * @param {SummaryMetric} metric
 * @param {string} stat
 * @param {number} value
 */
function formatFigure(metric, stat, value) {
  if (metric.type === "rate" && stat === "rate") return formatPercent(value);
  if (metric.contains === "time" && stat !== "count" && stat !== "rate") return formatDuration(value);
  if (metric.contains === "data" && stat === "count") return formatBytes(value);
  if (metric.contains === "data" && stat === "rate") return formatBytes(value) + "/s";
  if (stat === "rate") return round(value) + "/s";
  return Number.isInteger(value) ? String(value) : round(value);
}

/**
 * @param {SummaryMetric} metric
 * @param {string[]} trendStats
 */
function describeMetric(metric, trendStats) {
  const v = metric.values;
  if (metric.type === "trend") {
    return trendStats.filter((s) => typeof v[s] === "number").map((s) => s + "=" + formatFigure(metric, s, /** @type {number} */ (v[s]))).join(" ");
  }
  if (metric.type === "rate") return formatPercent(v.rate || 0) + " (" + (v.passes || 0) + " true, " + (v.fails || 0) + " false)";
  if (metric.type === "counter") return formatFigure(metric, "count", v.count || 0) + " (" + formatFigure(metric, "rate", v.rate || 0) + ")";
  return formatFigure(metric, "value", v.value || 0) + " (min " + formatFigure(metric, "value", v.min || 0) + ", max " + formatFigure(metric, "value", v.max || 0) + ")";
}

/**
 * @param {string} text
 * @param {number} width
 */
function padEnd(text, width) {
  let out = text;
  while (out.length < width) out += " ";
  return out;
}

/**
 * @param {string} text
 * @param {number} width
 */
function padStart(text, width) {
  let out = text;
  while (out.length < width) out = " " + out;
  return out;
}

/**
 * @param {string} text
 * @param {number} width
 */
function dotted(text, width) {
  let out = text;
  while (out.length < width) out += ".";
  return out + ":";
}

/**
 * k6's breakdown of each request's time and its automatic "expected response"
 * copy of the duration: in the JSON report, left out of the short text.
 */
const REPORT_ONLY = ["http_req_blocked", "http_req_connecting", "http_req_tls_handshaking", "http_req_sending", "http_req_receiving", "http_req_waiting"];

/** @param {string} name */
function shownInText(name) {
  const base = name.indexOf("{") === -1 ? name : name.slice(0, name.indexOf("{"));
  return REPORT_ONLY.indexOf(base) === -1 && name.indexOf("{expected_response:true}") === -1;
}

/**
 * The console summary: the verdict; a table per operation and per phase; the
 * other thresholds (broken first, each with the figure it was judged on);
 * checks; then the metrics (but the timing breakdown) with their other
 * submetrics under them.
 * @param {SummaryData} data
 * @param {ReportMeta} meta
 */
export function textSummary(data, meta) {
  const trendStats = trendStatsOf(data);
  const verdict = verdictOf(data);
  const lines = [""];
  const took = "scenario ran " + formatDuration(data.state.testRunDurationMs);
  lines.push(
    verdict.passed
      ? "  " + meta.script + ".js PASSED: all " + verdict.total + " thresholds held (" + took + ")"
      : "  " + meta.script + ".js FAILED: " + verdict.broken.length + " of " + verdict.total + " thresholds broken (" + took + ")",
  );

  /** @param {number | null} ms */
  const ms = (ms) => (ms === null ? "-" : formatDuration(ms));
  for (const tag of TABLE_TAGS) {
    const rows = tagRows(data, tag);
    if (rows.length === 0) continue;
    const withChecks = rows.some((r) => r.checksRate !== null);
    /** @param {TagRow} r */
    const cells = (r) => {
      const head = [r.thresholds === 0 ? " " : r.broken.length === 0 ? "✓" : "✗", r.value, String(r.requests), formatPercent(r.failedRate)];
      const checked = withChecks ? [r.checksRate === null ? "-" : formatPercent(r.checksRate)] : [];
      return head.concat(checked, [ms(r.med), ms(r.p95), ms(r.p99), ms(r.max)]);
    };
    const header = ["", tag === "op" ? "operation" : tag, "requests", "failed"].concat(withChecks ? ["checks"] : [], ["med", "p(95)", "p(99)", "max"]);
    const table = [header].concat(rows.map(cells));
    const widths = header.map((_, i) => table.reduce((w, row) => Math.max(w, (row[i] || "").length), 0));
    lines.push("", "  " + (tag === "op" ? "operations" : tag + "s") + " (✓: every threshold on it held)");
    table.forEach((row, index) => {
      lines.push("    " + row.map((cell, i) => (i <= 1 ? padEnd(cell, widths[i] || 0) : padStart(cell, widths[i] || 0))).join("  "));
      const r = rows[index - 1];
      if (r) for (const broken of r.broken) lines.push("        ✗ " + broken);
    });
  }

  const results = thresholdResults(data);
  const listed = results.filter((r) => !r.ok || !inTagTable(r.metric));
  if (listed.length > 0) {
    const inTables = results.length - listed.length;
    lines.push("", "  thresholds" + (inTables > 0 ? " (and " + inTables + " more that held, in the tables above)" : ""));
    const nameWidth = Math.min(72, listed.reduce((w, r) => Math.max(w, r.metric.length), 0));
    const exprWidth = listed.reduce((w, r) => Math.max(w, r.expression.length), 0);
    for (const r of listed) {
      const metric = data.metrics[r.metric];
      const seen = r.observed === null || !metric ? "no samples" : r.stat + "=" + formatFigure(metric, r.stat, r.observed);
      lines.push("    " + (r.ok ? "✓" : "✗") + " " + padEnd(r.metric, nameWidth) + "  " + padEnd(r.expression, exprWidth) + "  " + seen);
    }
  }

  const checks = allChecks(data.root_group);
  if (checks.length > 0) {
    lines.push("", "  checks");
    const width = checks.reduce((w, c) => Math.max(w, c.name.length), 0);
    for (const c of checks) {
      const total = c.passes + c.fails;
      lines.push("    " + (c.fails === 0 ? "✓" : "✗") + " " + padEnd(c.name, width) + "  " + (total === 0 ? "-" : formatPercent(c.passes / total)) + "  " + c.passes + " ✓ " + c.fails + " ✗");
    }
  }

  const names = Object.keys(data.metrics).filter(shownInText);
  const parents = names.filter((n) => n.indexOf("{") === -1).sort();
  if (parents.length > 0) {
    lines.push("", "  metrics (the HTTP timing breakdown is in the report)");
    const width = names.filter((n) => !inTagTable(n)).reduce((w, n) => Math.max(w, n.indexOf("{") === -1 ? n.length : n.length - n.indexOf("{") + 2), 0) + 2;
    for (const parent of parents) {
      const metric = data.metrics[parent];
      if (!metric) continue;
      lines.push("    " + dotted(parent, width) + " " + describeMetric(metric, trendStats));
      const subs = names.filter((n) => n.indexOf(parent + "{") === 0 && !inTagTable(n)).sort();
      for (const sub of subs) {
        const subMetric = data.metrics[sub];
        if (subMetric) lines.push("      " + dotted(sub.slice(parent.length), width - 2) + " " + describeMetric(subMetric, trendStats));
      }
    }
  }
  if (meta.notes && meta.notes.length > 0) {
    lines.push("", "  notes");
    for (const note of meta.notes) lines.push("    " + note);
  }
  return lines.join("\n") + "\n";
}

/**
 * The figures k6 computed for trends, in its order (reports without trend_stats).
 * @param {Record<string, SummaryMetric>} metrics
 */
function trendStatsIn(metrics) {
  const duration = metrics.http_req_duration;
  if (!duration) return undefined;
  const usual = ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)"];
  const present = Object.keys(duration.values);
  return usual.filter((s) => present.indexOf(s) !== -1).concat(present.filter((s) => usual.indexOf(s) === -1));
}

/** @param {SummaryData} data */
function trendStatsOf(data) {
  return (data.options && data.options.summaryTrendStats) || ["avg", "min", "med", "max", "p(90)", "p(95)"];
}

/**
 * The summary data a kept report was written from, so its text summary can be
 * shown again (loadtest/show-report.ts); only the groups of checks are lost.
 * @param {ReturnType<typeof jsonReport>} report
 * @returns {{ data: SummaryData, meta: ReportMeta }}
 */
export function fromReport(report) {
  return {
    data: {
      metrics: report.metrics,
      root_group: { name: "", groups: [], checks: report.checks },
      state: { testRunDurationMs: report.test_run_duration_ms },
      options: { summaryTrendStats: report.trend_stats || trendStatsIn(report.metrics) },
    },
    meta: { script: report.script.replace(/\.js$/, ""), settings: report.settings, notes: report.notes },
  };
}

/**
 * The report kept on disk: the verdict, the thresholds with their figures, the
 * checks, every metric as k6 gives it, and the settings the run used.
 * @param {SummaryData} data
 * @param {ReportMeta} meta
 * @param {Date} finishedAt
 */
export function jsonReport(data, meta, finishedAt) {
  const verdict = verdictOf(data);
  /** @param {TagRow} r */
  const row = (r) => ({
    value: r.value,
    tags: r.tags,
    requests: r.requests,
    failed_rate: r.failedRate,
    checks_rate: r.checksRate,
    med_ms: r.med,
    p95_ms: r.p95,
    p99_ms: r.p99,
    max_ms: r.max,
    thresholds_broken: r.broken,
  });
  return {
    report_version: 1,
    script: meta.script + ".js",
    passed: verdict.passed,
    finished_at: finishedAt.toISOString(),
    test_run_duration_ms: Math.round(data.state.testRunDurationMs),
    trend_stats: trendStatsOf(data),
    settings: meta.settings,
    notes: meta.notes || [],
    thresholds: thresholdResults(data),
    operations: tagRows(data, "op").map(row),
    phases: tagRows(data, "phase").map(row),
    checks: allChecks(data.root_group).map((c) => ({ name: c.name, passes: c.passes, fails: c.fails })),
    metrics: data.metrics,
  };
}

/**
 * Where the JSON report goes: `REPORT_JSON`, or loadtest/reports/<script>-<UTC
 * time>.json (relative to where k6 runs: the repository root in every example);
 * `REPORT_JSON=none` writes no file.
 * @param {Record<string, string | undefined>} env
 * @param {string} script
 * @param {Date} now
 * @returns {string | null}
 */
export function reportPath(env, script, now) {
  const configured = (env.REPORT_JSON || "").trim();
  if (configured === "none") return null;
  if (configured !== "") return configured;
  const stamp = now.toISOString().replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "");
  return "loadtest/reports/" + script + "-" + stamp + ".json";
}

/**
 * The object handleSummary() returns: the text on stdout, the report on disk.
 * @param {SummaryData} data
 * @param {ReportMeta} meta
 * @param {Record<string, string | undefined>} env
 * @param {Date} now
 * @returns {Record<string, string>}
 */
export function summaryOutputs(data, meta, env, now) {
  const path = reportPath(env, meta.script, now);
  /** @type {Record<string, string>} */
  const outputs = { stdout: textSummary(data, meta) + (path === null ? "" : "\n  report: " + path + "\n") };
  if (path !== null) outputs[path] = JSON.stringify(jsonReport(data, meta, now), null, 2) + "\n";
  return outputs;
}

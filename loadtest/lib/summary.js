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

/**
 * @typedef {Object} OperationRow
 * @property {string} tags the submetric's tags, e.g. "scenario:mixed,op:pages.get"
 * @property {string} op
 * @property {number} requests
 * @property {number} failedRate
 * @property {number | null} med ms
 * @property {number | null} p95 ms
 * @property {number | null} p99 ms
 * @property {number | null} max ms
 */

/**
 * One row per operation, from the per-operation submetrics (requests are
 * tagged `op`, and each operation has thresholds, so k6 reports them).
 * @param {SummaryData} data
 * @returns {OperationRow[]}
 */
export function operationRows(data) {
  /** @type {OperationRow[]} */
  const rows = [];
  for (const name of Object.keys(data.metrics).sort()) {
    const match = /^http_req_duration\{(.*\bop:([^,}]+).*)\}$/.exec(name);
    const duration = data.metrics[name];
    if (!match || !duration) continue;
    const tags = match[1] || "";
    const failed = data.metrics["http_req_failed{" + tags + "}"];
    /** @param {string} stat */
    const figure = (stat) => (typeof duration.values[stat] === "number" ? /** @type {number} */ (duration.values[stat]) : null);
    rows.push({
      tags,
      op: match[2] || "",
      requests: failed ? (failed.values.passes || 0) + (failed.values.fails || 0) : 0,
      failedRate: failed ? failed.values.rate || 0 : 0,
      med: figure("med"),
      p95: figure("p(95)"),
      p99: figure("p(99)"),
      max: figure("max"),
    });
  }
  return rows;
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
 * The console summary: verdict, thresholds (broken first, each with the figure
 * it was judged on), checks, then every metric with its submetrics under it.
 * @param {SummaryData} data
 * @param {ReportMeta} meta
 */
export function textSummary(data, meta) {
  const trendStats = (data.options && data.options.summaryTrendStats) || ["avg", "min", "med", "max", "p(90)", "p(95)"];
  const verdict = verdictOf(data);
  const lines = [""];
  const took = formatDuration(data.state.testRunDurationMs);
  lines.push(
    verdict.passed
      ? "  " + meta.script + ".js PASSED: all " + verdict.total + " thresholds held (" + took + ")"
      : "  " + meta.script + ".js FAILED: " + verdict.broken.length + " of " + verdict.total + " thresholds broken (" + took + ")",
  );

  const rows = operationRows(data);
  if (rows.length > 0) {
    /** @param {number | null} ms */
    const ms = (ms) => (ms === null ? "-" : formatDuration(ms));
    const header = ["operation", "requests", "failed", "med", "p(95)", "p(99)", "max"];
    const table = [header].concat(rows.map((r) => [r.op, String(r.requests), formatPercent(r.failedRate), ms(r.med), ms(r.p95), ms(r.p99), ms(r.max)]));
    const widths = header.map((_, i) => table.reduce((w, row) => Math.max(w, (row[i] || "").length), 0));
    lines.push("", "  operations");
    for (const row of table) lines.push("    " + row.map((cell, i) => (i === 0 ? padEnd(cell, widths[i] || 0) : padStart(cell, widths[i] || 0))).join("  "));
  }

  const results = thresholdResults(data);
  if (results.length > 0) {
    lines.push("", "  thresholds");
    const nameWidth = Math.min(72, results.reduce((w, r) => Math.max(w, r.metric.length), 0));
    const exprWidth = results.reduce((w, r) => Math.max(w, r.expression.length), 0);
    for (const r of results) {
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

  const names = Object.keys(data.metrics);
  const parents = names.filter((n) => n.indexOf("{") === -1).sort();
  if (parents.length > 0) {
    lines.push("", "  metrics");
    const width = names.reduce((w, n) => Math.max(w, n.indexOf("{") === -1 ? n.length : n.length - n.indexOf("{") + 2), 0) + 2;
    for (const parent of parents) {
      const metric = data.metrics[parent];
      if (!metric) continue;
      lines.push("    " + dotted(parent, width) + " " + describeMetric(metric, trendStats));
      const subs = names.filter((n) => n.indexOf(parent + "{") === 0).sort();
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
 * The report kept on disk: the verdict, the thresholds with their figures, the
 * checks, every metric as k6 gives it, and the settings the run used.
 * @param {SummaryData} data
 * @param {ReportMeta} meta
 * @param {Date} finishedAt
 */
export function jsonReport(data, meta, finishedAt) {
  const verdict = verdictOf(data);
  return {
    script: meta.script + ".js",
    passed: verdict.passed,
    finished_at: finishedAt.toISOString(),
    duration_ms: Math.round(data.state.testRunDurationMs),
    settings: meta.settings,
    notes: meta.notes || [],
    thresholds: thresholdResults(data),
    operations: operationRows(data),
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

import { describe, expect, test } from "bun:test";
import { formatDuration, fromReport, jsonReport, reportPath, summaryOutputs, tagRows, textSummary, thresholdResults, verdictOf, type SummaryData } from "./summary.js";

/** A small summary the way k6 v0.48 hands it to handleSummary(), with the secrets setup() returned. */
function summary(pagesGetP95: number): SummaryData & { setup_data: unknown } {
  const trend = (p95: number) => ({ avg: p95 / 2, min: 1, med: p95 / 3, max: p95 * 2, "p(90)": p95 * 0.9, "p(95)": p95, "p(99)": p95 * 1.5 });
  return {
    setup_data: { key: "wsk_secret_key_never_in_a_report" },
    options: { summaryTrendStats: ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)"] },
    state: { testRunDurationMs: 20_312.5 },
    root_group: {
      name: "",
      groups: [{ name: "setup", groups: [], checks: [] }],
      checks: [
        { name: "pages.get: 200 with the page asked for", passes: 143, fails: 0 },
        { name: "events.create: 201 with the new event", passes: 59, fails: 1 },
      ],
    },
    metrics: {
      http_req_duration: { type: "trend", contains: "time", values: trend(12) },
      "http_req_duration{scenario:mixed}": { type: "trend", contains: "time", values: trend(12), thresholds: { "p(95)<300": { ok: true } } },
      "http_req_duration{scenario:mixed,op:pages.get}": {
        type: "trend",
        contains: "time",
        values: trend(pagesGetP95),
        thresholds: { "p(95)<300": { ok: pagesGetP95 < 300 } },
      },
      "http_req_failed{scenario:mixed,op:pages.get}": { type: "rate", contains: "default", values: { rate: 0, passes: 0, fails: 143 }, thresholds: { "rate<0.01": { ok: true } } },
      "checks{scenario:mixed,op:pages.get}": { type: "rate", contains: "default", values: { rate: 1, passes: 286, fails: 0 }, thresholds: { "rate>0.99": { ok: true } } },
      "http_req_duration{scenario:mixed,op:events.create}": { type: "trend", contains: "time", values: trend(20), thresholds: { "p(95)<300": { ok: true } } },
      "http_req_failed{scenario:mixed,op:events.create}": { type: "rate", contains: "default", values: { rate: 0, passes: 0, fails: 60 }, thresholds: { "rate<0.01": { ok: true } } },
      "http_req_duration{scenario:mixed,phase:recovery}": { type: "trend", contains: "time", values: trend(9), thresholds: { "p(95)<300": { ok: true } } },
      "http_req_duration{scenario:mixed,phase:baseline}": { type: "trend", contains: "time", values: trend(8), thresholds: { "p(95)<300": { ok: true } } },
      dropped_iterations: { type: "counter", contains: "default", values: { count: 0, rate: 0 }, thresholds: { "count<=6": { ok: true } } },
      http_req_waiting: { type: "trend", contains: "time", values: trend(11) },
      "http_req_duration{expected_response:true}": { type: "trend", contains: "time", values: trend(12) },
      data_received: { type: "counter", contains: "data", values: { count: 1_410_000, rate: 69_300 } },
      vus: { type: "gauge", contains: "default", values: { value: 0, min: 0, max: 10 } },
    },
  };
}

const META = { script: "mixed", settings: { rate_per_s: 30 } };

describe("the verdict and the thresholds", () => {
  test("when a threshold broke, then it comes first, with the figure it was judged on", () => {
    const results = thresholdResults(summary(412));
    expect(results[0]).toEqual({ metric: "http_req_duration{scenario:mixed,op:pages.get}", expression: "p(95)<300", ok: false, stat: "p(95)", observed: 412 });
    expect(results.find((r) => r.metric === "dropped_iterations")).toMatchObject({ stat: "count", observed: 0, ok: true });
    expect(verdictOf(summary(412))).toEqual({ passed: false, broken: ["http_req_duration{scenario:mixed,op:pages.get} p(95)<300"], total: 9 });
    expect(verdictOf(summary(12)).passed).toBe(true);
  });
});

describe("the text summary", () => {
  test("when every threshold held, then the first line says PASSED and how many", () => {
    expect(textSummary(summary(12), META).split("\n")[1]).toBe("  mixed.js PASSED: all 9 thresholds held (scenario ran 20.3s)");
  });

  test("when an operation broke its threshold, then its row is marked and the broken threshold is spelled out under it", () => {
    const text = textSummary(summary(412), META);
    expect(text).toContain("mixed.js FAILED: 1 of 9 thresholds broken");
    const lines = text.split("\n");
    const row = lines.findIndex((l) => /^\s+✗\s+pages\.get\s/.test(l));
    expect(row).toBeGreaterThan(0);
    expect(lines[row]).toContain("412ms");
    expect(lines[row + 1]!.trim()).toBe("✗ http_req_duration p(95)<300: p(95)=412ms");
    expect(lines.some((l) => /^\s+✓\s+events\.create\s/.test(l))).toBe(true);
  });

  test("when requests are tagged with phases, then the phases table lists them in the order they happen", () => {
    const text = textSummary(summary(12), META);
    expect(text.indexOf("baseline")).toBeLessThan(text.indexOf("recovery"));
    expect(tagRows(summary(12), "phase").map((r) => r.value)).toEqual(["baseline", "recovery"]);
  });

  test("when a check failed sometimes, then it is marked with its share", () => {
    expect(textSummary(summary(12), META)).toMatch(/✗ events\.create: 201 with the new event\s+98\.33%\s+59 ✓ 1 ✗/);
  });

  test("when metrics are listed, then units are readable, the tagged rows live only in their tables and the timing breakdown only in the report", () => {
    const text = textSummary(summary(12), META);
    expect(text).toMatch(/data_received\.+: 1\.41 MB \(69\.3 kB\/s\)/);
    expect(text).toMatch(/\{scenario:mixed\}\.+: avg=6ms min=1ms med=4ms max=24ms p\(90\)=10\.8ms p\(95\)=12ms p\(99\)=18ms/);
    expect(text).not.toMatch(/\{scenario:mixed,op:pages\.get\}\.+:/);
    expect(text).not.toContain("http_req_waiting");
    expect(text).not.toContain("expected_response");
    expect(Object.keys(jsonReport(summary(12), META, new Date()).metrics)).toContain("http_req_waiting");
    expect(formatDuration(0.25)).toBe("250µs");
    expect(formatDuration(95_000)).toBe("1m35s");
  });
});

describe("the JSON report", () => {
  test("when written, then it holds the verdict, settings, per-operation rows and every metric, and never setup()'s data", () => {
    const report = jsonReport(summary(412), META, new Date("2030-01-01T10:00:00Z"));
    expect(report).toMatchObject({ report_version: 1, script: "mixed.js", passed: false, finished_at: "2030-01-01T10:00:00.000Z", settings: { rate_per_s: 30 } });
    expect(report.operations.find((r) => r.value === "pages.get")).toMatchObject({ requests: 143, failed_rate: 0, checks_rate: 1, p95_ms: 412, thresholds_broken: ["http_req_duration p(95)<300: p(95)=412ms"] });
    expect(Object.keys(report.metrics)).toContain("dropped_iterations");
    const outputs = summaryOutputs(summary(12), META, {}, new Date("2030-01-01T10:00:00.123Z"));
    expect(Object.keys(outputs).sort()).toEqual(["loadtest/reports/mixed-20300101T100000Z.json", "stdout"]);
    expect(JSON.stringify(outputs)).not.toContain("wsk_secret_key_never_in_a_report");
  });

  test("when REPORT_JSON names a file, then the report goes there; when it is none, then no file is written", () => {
    const now = new Date("2030-01-01T10:00:00Z");
    expect(reportPath({ REPORT_JSON: " /tmp/run.json " }, "soak", now)).toBe("/tmp/run.json");
    expect(reportPath({}, "soak", now)).toBe("loadtest/reports/soak-20300101T100000Z.json");
    expect(Object.keys(summaryOutputs(summary(12), META, { REPORT_JSON: "none" }, now))).toEqual(["stdout"]);
  });
});

describe("a kept report", () => {
  test("when a report is read back, then it prints the same text summary as the run did", () => {
    const report = JSON.parse(JSON.stringify(jsonReport(summary(412), META, new Date())));
    const again = fromReport(report);
    expect(textSummary(again.data, again.meta)).toBe(textSummary(summary(412), META));
  });
});

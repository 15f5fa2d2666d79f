// @ts-check
/**
 * A realistic mix of page and calendar operations at a constant arrival rate
 * (an open model: requests keep coming whether or not the system keeps up).
 * One iteration is one request, so RATE is requests per second.
 *
 *   ADMIN_URL=http://localhost:8081 ADMIN_TOKEN=… k6 run loadtest/mixed.js
 *   API_KEY=wsk_… RATE=10 k6 run loadtest/mixed.js
 */
import { CLEANUP_THRESHOLDS } from "./lib/cleanup.js";
import { baseUrls, credentials, durationFrom, durationSeconds, integerFrom, numberFrom } from "./lib/config.js";
import { mixWeights, parseMix } from "./lib/mix.js";
import { constantArrivalScenario, WORKLOAD_OPTIONS } from "./lib/profiles.js";
import { droppedIterationsThreshold, operationTargetsFrom, operationThresholds, workloadThresholds } from "./lib/thresholds.js";
import { runOperation, setupWorkload, teardownWorkload, workloadSummary } from "./lib/workload.js";

const URLS = baseUrls(__ENV);
const CREDENTIALS = credentials(__ENV);
const MIX = parseMix(__ENV.MIX);
const RATE = integerFrom(__ENV, "RATE", 50, { min: 1, max: 100000 });
const DURATION = durationFrom(__ENV, "DURATION", "2m", 4 * 3600);
const VUS = integerFrom(__ENV, "VUS", Math.max(10, Math.ceil(RATE / 5)), { min: 1, max: 20000 });
const SEED_PAGES = integerFrom(__ENV, "SEED_PAGES", 20, { min: 1, max: 1000 });
const TARGETS = {
  p95: numberFrom(__ENV, "P95_MS", 300, { min: 1 }),
  p99: numberFrom(__ENV, "P99_MS", 800, { min: 1 }),
  errorRate: numberFrom(__ENV, "ERROR_RATE", 0.01, { min: 0, max: 1 }),
  p95ByOperation: operationTargetsFrom(__ENV, "OP_P95_MS"),
};
const DROPPED_RATE = numberFrom(__ENV, "DROPPED_RATE", 0.01, { min: 0, max: 1 });
const PLANNED = RATE * durationSeconds(DURATION);
const SCENARIO = "mixed";

/** @type {import("k6/options").Options} */
export const options = Object.assign({}, WORKLOAD_OPTIONS, {
  scenarios: { [SCENARIO]: constantArrivalScenario({ rate: RATE, duration: DURATION, vus: VUS }) },
  thresholds: Object.assign(
    workloadThresholds(SCENARIO, TARGETS),
    operationThresholds(SCENARIO, MIX, TARGETS),
    { dropped_iterations: droppedIterationsThreshold(PLANNED, DROPPED_RATE) },
    CLEANUP_THRESHOLDS,
  ),
});

export function setup() {
  return setupWorkload({ urls: URLS, credentials: CREDENTIALS, peakPerSecond: RATE, seedPages: SEED_PAGES, label: "k6 mixed" });
}

/** @param {import("./lib/workload.js").WorkloadData} data */
export default function (data) {
  runOperation(data, MIX);
}

/** @param {import("./lib/workload.js").WorkloadData} data */
export function teardown(data) {
  teardownWorkload(data, CREDENTIALS);
}

/** @param {import("./lib/summary.js").SummaryData} data */
export function handleSummary(data) {
  const settings = {
    rate_per_s: RATE,
    duration: DURATION,
    planned_iterations: PLANNED,
    vus: VUS,
    seed_pages: SEED_PAGES,
    targets: { p95_ms: TARGETS.p95, p99_ms: TARGETS.p99, error_rate: TARGETS.errorRate, p95_ms_by_operation: TARGETS.p95ByOperation, dropped_rate: DROPPED_RATE },
    mix: mixWeights(MIX),
  };
  return workloadSummary(data, { script: SCENARIO, urls: URLS, credentials: CREDENTIALS, settings });
}

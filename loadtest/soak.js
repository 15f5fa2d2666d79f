// @ts-check
/**
 * A soak: the operation mix at a moderate constant rate for a long time, to
 * find what only time shows (connection-pool exhaustion, leaks, a growing
 * table slowing the list). The final tenth of the run is held to the same
 * targets as the whole, so a slow drift fails the run even when the average
 * looks fine.
 *
 *   ADMIN_URL=http://localhost:8081 ADMIN_TOKEN=… DURATION=2h k6 run loadtest/soak.js
 */
import exec from "k6/execution";
import { CLEANUP_THRESHOLDS } from "./lib/cleanup.js";
import { baseUrls, credentials, durationFrom, durationSeconds, integerFrom, numberFrom } from "./lib/config.js";
import { mixWeights, parseMix } from "./lib/mix.js";
import { constantArrivalScenario, soakPhaseAt, WORKLOAD_OPTIONS } from "./lib/profiles.js";
import { droppedIterationsThreshold, operationTargetsFrom, operationThresholds, workloadThresholds } from "./lib/thresholds.js";
import { runOperation, setupWorkload, teardownWorkload, workloadSummary } from "./lib/workload.js";

const URLS = baseUrls(__ENV);
const CREDENTIALS = credentials(__ENV);
const MIX = parseMix(__ENV.MIX);
const RATE = integerFrom(__ENV, "RATE", 20, { min: 1, max: 100000 });
const DURATION = durationFrom(__ENV, "DURATION", "30m", 24 * 3600);
const TOTAL_SECONDS = durationSeconds(DURATION);
const VUS = integerFrom(__ENV, "VUS", Math.max(10, Math.ceil(RATE / 5)), { min: 1, max: 20000 });
const SEED_PAGES = integerFrom(__ENV, "SEED_PAGES", 20, { min: 1, max: 1000 });
const P95_MS = numberFrom(__ENV, "P95_MS", 300, { min: 1 });
const P99_MS = numberFrom(__ENV, "P99_MS", 800, { min: 1 });
const ERROR_RATE = numberFrom(__ENV, "ERROR_RATE", 0.01, { min: 0, max: 1 });
const P95_BY_OPERATION = operationTargetsFrom(__ENV, "OP_P95_MS");
const DROPPED_RATE = numberFrom(__ENV, "DROPPED_RATE", 0.01, { min: 0, max: 1 });
const PLANNED = RATE * TOTAL_SECONDS;
const SCENARIO = "soak";

const thresholds = workloadThresholds(SCENARIO, { p95: P95_MS, p99: P99_MS, errorRate: ERROR_RATE });
Object.assign(thresholds, operationThresholds(SCENARIO, MIX, { p95: P95_MS, errorRate: ERROR_RATE, p95ByOperation: P95_BY_OPERATION }));
// Every phase to the same targets: the table of phases then shows a drift at a glance.
for (const phase of ["early", "middle", "final"]) {
  thresholds["http_req_duration{scenario:" + SCENARIO + ",phase:" + phase + "}"] = ["p(95)<" + P95_MS, "p(99)<" + P99_MS];
  thresholds["http_req_failed{scenario:" + SCENARIO + ",phase:" + phase + "}"] = ["rate<" + ERROR_RATE];
}
thresholds.dropped_iterations = droppedIterationsThreshold(PLANNED, DROPPED_RATE);
Object.assign(thresholds, CLEANUP_THRESHOLDS);

/** @type {import("k6/options").Options} */
export const options = Object.assign({}, WORKLOAD_OPTIONS, {
  scenarios: { [SCENARIO]: constantArrivalScenario({ rate: RATE, duration: DURATION, vus: VUS }) },
  thresholds,
});

export function setup() {
  return setupWorkload({ urls: URLS, credentials: CREDENTIALS, peakPerSecond: RATE, seedPages: SEED_PAGES, label: "k6 soak" });
}

/** @param {import("./lib/workload.js").WorkloadData} data */
export default function (data) {
  const phase = soakPhaseAt(TOTAL_SECONDS, (Date.now() - exec.scenario.startTime) / 1000);
  runOperation(data, MIX, { phase });
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
    targets: { p95_ms: P95_MS, p99_ms: P99_MS, error_rate: ERROR_RATE, p95_ms_by_operation: P95_BY_OPERATION, dropped_rate: DROPPED_RATE },
    mix: mixWeights(MIX),
  };
  return workloadSummary(data, { script: SCENARIO, urls: URLS, credentials: CREDENTIALS, settings });
}

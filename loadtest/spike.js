// @ts-check
/**
 * A sudden spike: the operation mix at a base rate, a climb within seconds to
 * many times that rate, a hold, and a fall back. During the spike the system
 * may slow down and shed a little; after it, it must be back to its normal
 * latency and error rate (the "recovery" phase has thresholds of its own).
 *
 *   ADMIN_URL=http://localhost:8081 ADMIN_TOKEN=… k6 run loadtest/spike.js
 */
import exec from "k6/execution";
import { CLEANUP_THRESHOLDS } from "./lib/cleanup.js";
import { baseUrls, credentials, durationFrom, integerFrom, numberFrom } from "./lib/config.js";
import { mixWeights, parseMix } from "./lib/mix.js";
import { spikePhaseAt, spikePlannedIterations, spikeStages, WORKLOAD_OPTIONS } from "./lib/profiles.js";
import { checkRateAbove, droppedIterationsThreshold, operationTargetsFrom, operationThresholds } from "./lib/thresholds.js";
import { runOperation, setupWorkload, teardownWorkload, workloadSummary } from "./lib/workload.js";

const URLS = baseUrls(__ENV);
const CREDENTIALS = credentials(__ENV);
const MIX = parseMix(__ENV.MIX);
const PLAN = {
  baseRate: integerFrom(__ENV, "BASE_RATE", 20, { min: 1, max: 100000 }),
  spikeRate: integerFrom(__ENV, "SPIKE_RATE", 300, { min: 1, max: 100000 }),
  warm: durationFrom(__ENV, "WARM", "30s", 3600),
  ramp: durationFrom(__ENV, "RAMP", "10s", 3600),
  hold: durationFrom(__ENV, "HOLD", "1m", 3600),
  recover: durationFrom(__ENV, "RECOVER", "1m", 3600),
};
const VUS = integerFrom(__ENV, "VUS", Math.max(20, Math.ceil(PLAN.spikeRate / 4)), { min: 1, max: 20000 });
const SEED_PAGES = integerFrom(__ENV, "SEED_PAGES", 20, { min: 1, max: 1000 });
const P95_MS = numberFrom(__ENV, "P95_MS", 300, { min: 1 });
const ERROR_RATE = numberFrom(__ENV, "ERROR_RATE", 0.01, { min: 0, max: 1 });
const SPIKE_P95_MS = numberFrom(__ENV, "SPIKE_P95_MS", 1500, { min: 1 });
const SPIKE_ERROR_RATE = numberFrom(__ENV, "SPIKE_ERROR_RATE", 0.05, { min: 0, max: 1 });
const SPIKE_P95_BY_OPERATION = operationTargetsFrom(__ENV, "OP_P95_MS");
const DROPPED_RATE = numberFrom(__ENV, "DROPPED_RATE", 0.01, { min: 0, max: 1 });
const PLANNED = spikePlannedIterations(PLAN);
const SCENARIO = "spike";

/** @type {Record<string, string[]>} */
const thresholds = {};
// Over the whole run, the spike included: slower, a few errors tolerated.
thresholds["http_req_duration{scenario:" + SCENARIO + "}"] = ["p(95)<" + SPIKE_P95_MS];
thresholds["http_req_failed{scenario:" + SCENARIO + "}"] = ["rate<" + SPIKE_ERROR_RATE];
// Before and after the spike: the normal targets.
for (const phase of ["baseline", "recovery"]) {
  thresholds["http_req_duration{scenario:" + SCENARIO + ",phase:" + phase + "}"] = ["p(95)<" + P95_MS];
  thresholds["http_req_failed{scenario:" + SCENARIO + ",phase:" + phase + "}"] = ["rate<" + ERROR_RATE];
}
thresholds["checks{scenario:" + SCENARIO + "}"] = [checkRateAbove(SPIKE_ERROR_RATE)];
thresholds.operations_completed = ["count>0"];
// The peak itself, and each operation over the whole run, to the spike's targets.
thresholds["http_req_duration{scenario:" + SCENARIO + ",phase:spike}"] = ["p(95)<" + SPIKE_P95_MS];
thresholds["http_req_failed{scenario:" + SCENARIO + ",phase:spike}"] = ["rate<" + SPIKE_ERROR_RATE];
Object.assign(thresholds, operationThresholds(SCENARIO, MIX, { p95: SPIKE_P95_MS, errorRate: SPIKE_ERROR_RATE, p95ByOperation: SPIKE_P95_BY_OPERATION }));
// The scenario promises its arrival rate at every stage, the peak included.
thresholds.dropped_iterations = droppedIterationsThreshold(PLANNED, DROPPED_RATE);
Object.assign(thresholds, CLEANUP_THRESHOLDS);

/** @type {import("k6/options").Options} */
export const options = Object.assign({}, WORKLOAD_OPTIONS, {
  scenarios: {
    [SCENARIO]: /** @type {import("k6/options").Scenario} */ ({
      executor: "ramping-arrival-rate",
      startRate: PLAN.baseRate,
      timeUnit: "1s",
      stages: spikeStages(PLAN),
      preAllocatedVUs: VUS,
      maxVUs: VUS * 4,
    }),
  },
  thresholds,
});

export function setup() {
  return setupWorkload({
    urls: URLS,
    credentials: CREDENTIALS,
    peakPerSecond: Math.max(PLAN.baseRate, PLAN.spikeRate),
    seedPages: SEED_PAGES,
    label: "k6 spike",
  });
}

/** @param {import("./lib/workload.js").WorkloadData} data */
export default function (data) {
  const phase = spikePhaseAt(PLAN, (Date.now() - exec.scenario.startTime) / 1000);
  runOperation(data, MIX, { phase });
}

/** @param {import("./lib/workload.js").WorkloadData} data */
export function teardown(data) {
  teardownWorkload(data, CREDENTIALS);
}

/** @param {import("./lib/summary.js").SummaryData} data */
export function handleSummary(data) {
  const settings = {
    plan: { base_rate_per_s: PLAN.baseRate, spike_rate_per_s: PLAN.spikeRate, warm: PLAN.warm, ramp: PLAN.ramp, hold: PLAN.hold, recover: PLAN.recover },
    planned_iterations: PLANNED,
    vus: VUS,
    seed_pages: SEED_PAGES,
    targets: {
      p95_ms: P95_MS,
      error_rate: ERROR_RATE,
      spike_p95_ms: SPIKE_P95_MS,
      spike_error_rate: SPIKE_ERROR_RATE,
      p95_ms_by_operation: SPIKE_P95_BY_OPERATION,
      dropped_rate: DROPPED_RATE,
    },
    mix: mixWeights(MIX),
  };
  return workloadSummary(data, { script: SCENARIO, urls: URLS, credentials: CREDENTIALS, settings });
}

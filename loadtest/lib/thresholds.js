// @ts-check
/**
 * Thresholds the workload scripts share. Every request and check of an
 * iteration is tagged with its operation (`op`), so each operation of the mix
 * is held to its own latency, error and check targets: a slow or broken
 * operation fails the run even when it is a small share of the mix and the
 * overall figures look fine. No k6 imports.
 */
import { OPERATIONS } from "./mix.js";

/**
 * @typedef {Object} Targets
 * @property {number} p95 ms, for every operation without a target of its own
 * @property {number} errorRate failed requests (and failed checks) allowed, 0 to 1
 * @property {Partial<Record<import("./mix.js").Operation, number>>} [p95ByOperation] ms
 */

/** @param {number} errorRate */
export function checkRateAbove(errorRate) {
  return "rate>" + Number((1 - errorRate).toFixed(6));
}

/**
 * Scenario-scoped thresholds over every operation, so setup()'s seeding does
 * not count.
 * @param {string} scenario
 * @param {{ p95: number, p99: number, errorRate: number }} targets
 * @returns {Record<string, string[]>}
 */
export function workloadThresholds(scenario, targets) {
  /** @type {Record<string, string[]>} */
  const thresholds = {};
  thresholds["http_req_duration{scenario:" + scenario + "}"] = ["p(95)<" + targets.p95, "p(99)<" + targets.p99];
  thresholds["http_req_failed{scenario:" + scenario + "}"] = ["rate<" + targets.errorRate];
  thresholds["checks{scenario:" + scenario + "}"] = [checkRateAbove(targets.errorRate)];
  // setupWorkload() adds a 0, so a run whose iterations all died before checking anything fails.
  thresholds.operations_completed = ["count>0"];
  return thresholds;
}

/**
 * Per-operation thresholds for the operations the mix can pick.
 * @param {string} scenario
 * @param {import("./mix.js").Mix} mix
 * @param {Targets} targets
 * @returns {Record<string, string[]>}
 */
export function operationThresholds(scenario, mix, targets) {
  /** @type {Record<string, string[]>} */
  const thresholds = {};
  for (const entry of mix) {
    if (entry.weight <= 0) continue;
    const tags = "{scenario:" + scenario + ",op:" + entry.operation + "}";
    const own = targets.p95ByOperation ? targets.p95ByOperation[entry.operation] : undefined;
    thresholds["http_req_duration" + tags] = ["p(95)<" + (own === undefined ? targets.p95 : own)];
    thresholds["http_req_failed" + tags] = ["rate<" + targets.errorRate];
    thresholds["checks" + tags] = [checkRateAbove(targets.errorRate)];
  }
  return thresholds;
}

/**
 * Per-operation p(95) targets from the environment, written like MIX:
 * `OP_P95_MS=pages.create=500,events.create=500`.
 * @param {Record<string, string | undefined>} env
 * @param {string} name
 * @returns {Partial<Record<import("./mix.js").Operation, number>>}
 */
export function operationTargetsFrom(env, name) {
  const text = env[name];
  /** @type {Partial<Record<import("./mix.js").Operation, number>>} */
  const targets = {};
  if (text === undefined || text.trim() === "") return targets;
  for (const part of text.split(",")) {
    const pieces = part.split("=");
    const operation = /** @type {import("./mix.js").Operation} */ ((pieces[0] || "").trim());
    const value = (pieces[1] || "").trim();
    if (OPERATIONS.indexOf(operation) === -1) throw new Error(name + ": unknown operation " + JSON.stringify(operation) + "; known: " + OPERATIONS.join(", "));
    if (pieces.length !== 2 || !/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0) throw new Error(name + ": " + JSON.stringify(part) + " is not operation=milliseconds");
    targets[operation] = Number(value);
  }
  return targets;
}

/**
 * A scenario that promises an arrival rate keeps it only while k6 has a free
 * VU for each iteration; iterations it could not start are dropped, and the
 * latencies then describe less load than was asked for. At most `fraction` of
 * the planned iterations may be dropped (at least one: k6 may drop one while
 * it starts a VU).
 * @param {number} plannedIterations
 * @param {number} fraction 0 to 1
 * @returns {string[]}
 */
export function droppedIterationsThreshold(plannedIterations, fraction) {
  return ["count<=" + Math.max(1, Math.ceil(plannedIterations * fraction))];
}

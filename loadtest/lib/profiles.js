// @ts-check
/**
 * Load shapes of spike.js and soak.js, and which phase of the shape a moment
 * falls in (requests are tagged with it, so thresholds can hold the recovery
 * after a spike, or the end of a soak, to their own targets). No k6 imports.
 */
import { durationSeconds } from "./config.js";

/**
 * @typedef {Object} SpikePlan
 * @property {number} baseRate iterations per second before and after the spike
 * @property {number} spikeRate iterations per second at the top of the spike
 * @property {string} warm time at the base rate before the spike
 * @property {string} ramp time to climb to the spike rate, and to fall back
 * @property {string} hold time at the spike rate
 * @property {string} recover time at the base rate after the spike
 */

/** @typedef {"baseline" | "spike" | "recovery"} SpikePhase */

/** Options every workload script shares: time to provision in setup(), and the percentiles its summary shows. */
export const WORKLOAD_OPTIONS = {
  setupTimeout: "2m",
  summaryTrendStats: ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)"],
};

/**
 * A constant-arrival-rate scenario: `rate` iterations a second for `duration`,
 * with room for four times the pre-allocated VUs if responses slow down.
 * @param {{ rate: number, duration: string, vus: number }} plan
 * @returns {import("k6/options").Scenario}
 */
export function constantArrivalScenario(plan) {
  return {
    executor: "constant-arrival-rate",
    rate: plan.rate,
    timeUnit: "1s",
    duration: plan.duration,
    preAllocatedVUs: plan.vus,
    maxVUs: plan.vus * 4,
  };
}

/**
 * Stages of a ramping-arrival-rate scenario.
 * @param {SpikePlan} plan
 * @returns {Array<{ duration: string, target: number }>}
 */
export function spikeStages(plan) {
  return [
    { duration: plan.warm, target: plan.baseRate },
    { duration: plan.ramp, target: plan.spikeRate },
    { duration: plan.hold, target: plan.spikeRate },
    { duration: plan.ramp, target: plan.baseRate },
    { duration: plan.recover, target: plan.baseRate },
  ];
}

/**
 * @param {SpikePlan} plan
 * @param {number} elapsedSeconds since the scenario started
 * @returns {SpikePhase}
 */
export function spikePhaseAt(plan, elapsedSeconds) {
  const warm = durationSeconds(plan.warm);
  const spikeEnd = warm + 2 * durationSeconds(plan.ramp) + durationSeconds(plan.hold);
  if (elapsedSeconds < warm) return "baseline";
  if (elapsedSeconds < spikeEnd) return "spike";
  return "recovery";
}

/** @param {SpikePlan} plan */
export function spikeTotalSeconds(plan) {
  return durationSeconds(plan.warm) + 2 * durationSeconds(plan.ramp) + durationSeconds(plan.hold) + durationSeconds(plan.recover);
}

/**
 * Iterations the spike's stages ask for: k6 moves the rate linearly within a
 * stage, so a ramp asks for the mean of its two ends.
 * @param {SpikePlan} plan
 */
export function spikePlannedIterations(plan) {
  const ramp = durationSeconds(plan.ramp) * (plan.baseRate + plan.spikeRate) / 2;
  return Math.round(plan.baseRate * durationSeconds(plan.warm) + 2 * ramp + plan.spikeRate * durationSeconds(plan.hold) + plan.baseRate * durationSeconds(plan.recover));
}

/** @typedef {"early" | "middle" | "final"} SoakPhase */

/**
 * The first and last tenth of a soak are phases of their own: a system that
 * degrades over time meets its targets early and misses them in the final one.
 * @param {number} totalSeconds
 * @param {number} elapsedSeconds
 * @returns {SoakPhase}
 */
export function soakPhaseAt(totalSeconds, elapsedSeconds) {
  if (elapsedSeconds < totalSeconds * 0.1) return "early";
  if (elapsedSeconds >= totalSeconds * 0.9) return "final";
  return "middle";
}

/**
 * An open-loop load generator, run as its own process by `openLoop()`: request
 * i is due at start + i / rate whatever happened to the earlier ones, and its
 * latency is measured from that due time, not from when it was sent. A server
 * that stalls therefore pays for every request that should have gone out during
 * the stall (wrk2's correction of coordinated omission). autocannon, even with
 * `overallRate`, is closed-loop: a connection waits for its answer before it
 * sends again, so a stall delays the next requests instead of timing them.
 *
 * argv[2]: JSON {url, headers, rate, seconds}. Prints one JSON line: OpenLoopFigures.
 */
import type { OpenLoopFigures, OpenLoopPlan } from "./index";

const plan = JSON.parse(process.argv[2]!) as OpenLoopPlan;
const total = Math.max(1, Math.round(plan.rate * plan.seconds));
const latencies = new Float64Array(total).fill(Number.NaN);
const sendLags = new Float64Array(total);
let non2xx = 0;
let errors = 0;
let finished = 0;

function send(index: number, due: number) {
  sendLags[index] = performance.now() - due;
  fetch(plan.url, { headers: plan.headers, signal: AbortSignal.timeout(10_000) })
    .then(async (response) => {
      await response.arrayBuffer();
      latencies[index] = performance.now() - due;
      if (response.status < 200 || response.status >= 300) non2xx++;
    })
    .catch(() => {
      errors++;
    })
    .finally(() => {
      finished++;
    });
}

const cpuBefore = process.cpuUsage();
const start = performance.now() + 5;
let next = 0;
while (next < total) {
  const due = Math.min(total, Math.floor(((performance.now() - start) * plan.rate) / 1000) + 1);
  for (; next < due; next++) send(next, start + (next * 1000) / plan.rate);
  // Bun's timers fire about every millisecond: the requests due meanwhile go out together, each timed from its own due time.
  await Bun.sleep(1);
}
const lastDue = start + ((total - 1) * 1000) / plan.rate;
const drainDeadline = performance.now() + 12_000;
while (finished < total && performance.now() < drainDeadline) await Bun.sleep(5);
const cpu = process.cpuUsage(cpuBefore);

const timed = Array.from(latencies).filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
const lags = Array.from(sendLags).sort((a, b) => a - b);
const at = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : Number.NaN);
const ms = (value: number) => Math.round(value * 100) / 100;
const figures: OpenLoopFigures = {
  rate: plan.rate,
  seconds: plan.seconds,
  requests: total,
  achieved_rps: Math.round(total / ((lastDue - start) / 1000 || 1)),
  p50_ms: ms(at(timed, 50)),
  p90_ms: ms(at(timed, 90)),
  p99_ms: ms(at(timed, 99)),
  p999_ms: ms(at(timed, 99.9)),
  max_ms: ms(timed.at(-1) ?? Number.NaN),
  non2xx,
  errors: errors + (total - finished),
  send_lag_p99_ms: ms(at(lags, 99)),
  send_lag_max_ms: ms(lags.at(-1)!),
  generator_cpu_us_per_request: Math.round((cpu.user + cpu.system) / total),
};
console.log(JSON.stringify(figures));
process.exit(0);

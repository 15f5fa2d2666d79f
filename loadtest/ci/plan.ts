/**
 * The k6 runs of the CI stage: every script, shortened through its own
 * environment settings so the whole stage (system start included) stays under
 * three minutes. Longer and heavier runs are for a load tester's machine.
 *
 * CI shares a small machine between k6, the system under test and whatever
 * else runs there, so it judges what must hold on any machine (every answer
 * checked, no errors, exact rate limits, the promised arrival rate within a
 * few percent) and only gross latency regressions. The latency targets of the
 * scripts' defaults are for runs on a machine of their own.
 */

export interface Target {
  gatewayUrls: string[];
  adminUrl: string;
  adminToken: string;
}

export interface PlannedRun {
  /** Names the run in the log and its report file. */
  name: string;
  script: string;
  /** Runs only when the system has several gateway replicas. */
  replicas: number;
  /** What k6 is told, beside the target's URLs and token. */
  settings: Record<string, string>;
  /** Time k6 needs for its scenario at most (a rate-limit run may wait for a fresh window), setup and teardown excluded. */
  scenarioSeconds: number;
}

/**
 * A key waits for a fresh window when fewer than this many seconds of the
 * current one are left; the runs below send their requests in under a second.
 */
const MIN_WINDOW_LEFT_S = 6;
const WINDOW_WAIT_S = MIN_WINDOW_LEFT_S + 2;

/** Few VUs: k6 compiles the scripts once per VU, seconds of CPU on a small machine. */
const WORKLOAD = { SEED_PAGES: "5", DROPPED_RATE: "0.05" };
const LATENCY = { P95_MS: "1000", P99_MS: "2000" };

export const CI_RUNS: PlannedRun[] = [
  {
    name: "ratelimit-1-gateway",
    script: "ratelimit.js",
    replicas: 1,
    settings: { RL_KEYS: "3", RL_LIMIT: "30", RL_MIN_WINDOW_LEFT: String(MIN_WINDOW_LEFT_S) },
    scenarioSeconds: WINDOW_WAIT_S + 5,
  },
  {
    name: "ratelimit-3-replicas",
    script: "ratelimit.js",
    replicas: 3,
    // A limit large enough for the replicas to take leases and a band (a tenth of it) to matter.
    settings: { RL_KEYS: "3", RL_LIMIT: "2000", RL_CONCURRENCY: "100", RL_MIN_WINDOW_LEFT: String(MIN_WINDOW_LEFT_S) },
    scenarioSeconds: WINDOW_WAIT_S + 5,
  },
  {
    name: "mixed",
    script: "mixed.js",
    replicas: 1,
    settings: { RATE: "30", DURATION: "20s", VUS: "5", ...WORKLOAD, ...LATENCY },
    scenarioSeconds: 20,
  },
  {
    name: "spike",
    script: "spike.js",
    replicas: 1,
    settings: { BASE_RATE: "10", SPIKE_RATE: "100", WARM: "8s", RAMP: "3s", HOLD: "8s", RECOVER: "8s", VUS: "10", ...WORKLOAD, P95_MS: "1000", SPIKE_P95_MS: "2000" },
    scenarioSeconds: 30,
  },
  {
    name: "soak",
    script: "soak.js",
    replicas: 1,
    settings: { RATE: "15", DURATION: "20s", VUS: "5", ...WORKLOAD, ...LATENCY },
    scenarioSeconds: 20,
  },
];

/** The environment of one run: replica 0 alone, or every replica in BASE_URLS. */
export function runEnv(run: PlannedRun, target: Target, reportPath: string): Record<string, string> {
  const urls: Record<string, string> = run.replicas > 1 ? { BASE_URLS: target.gatewayUrls.slice(0, run.replicas).join(",") } : { BASE_URL: target.gatewayUrls[0]! };
  return { ...urls, ADMIN_URL: target.adminUrl, ADMIN_TOKEN: target.adminToken, REPORT_JSON: reportPath, ...run.settings };
}

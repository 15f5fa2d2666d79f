// @ts-check
/**
 * Rate-limit exactness (contract section 7). One VU per key; each iteration
 * takes a fresh clock-minute window and sends the key's limit plus some more:
 * a few requests one after another, a concurrent burst spread over every
 * replica in BASE_URLS, then a few more one after another. Every response is
 * judged by lib/ratelimit-rules.js; any broken rule fails a threshold, so k6
 * exits non-zero.
 *
 *   ADMIN_URL=http://localhost:8081 ADMIN_TOKEN=… k6 run loadtest/ratelimit.js
 *   API_KEY=wsk_… k6 run loadtest/ratelimit.js
 */
import http from "k6/http";
import { check, sleep } from "k6";
import exec from "k6/execution";
import { Counter } from "k6/metrics";
import { authHeaders, createKey, provisionWorkspace, targetFor } from "./lib/api.js";
import { baseUrls, booleanFrom, credentials, integerFrom } from "./lib/config.js";
import { judgeRateLimitRun, msUntilNextWindow, readRateLimitHeaders } from "./lib/ratelimit-rules.js";

const URLS = baseUrls(__ENV);
const CREDENTIALS = credentials(__ENV);
const KEYS = CREDENTIALS.mode === "keys" ? CREDENTIALS.keys.length : integerFrom(__ENV, "RL_KEYS", 3, { min: 1, max: 200 });
const LIMIT = integerFrom(__ENV, "RL_LIMIT", 30, { min: 1, max: 100000 });
const EXTRA = __ENV.RL_EXTRA ? integerFrom(__ENV, "RL_EXTRA", 1, { min: 1, max: 100000 }) : null;
const WINDOWS = integerFrom(__ENV, "RL_WINDOWS", 1, { min: 1, max: 30 });
const SEQUENTIAL = integerFrom(__ENV, "RL_SEQUENTIAL", 5, { min: 1, max: 1000 });
const CONCURRENCY = integerFrom(__ENV, "RL_CONCURRENCY", 50, { min: 1, max: 2000 });
const MIN_WINDOW_LEFT_S = integerFrom(__ENV, "RL_MIN_WINDOW_LEFT", 20, { min: 0, max: 55 });
const CLOCK_SKEW_MS = integerFrom(__ENV, "CLOCK_SKEW_MS", 2000, { min: 0, max: 20000 });
const PATH = __ENV.RL_PATH || "/v1/new-page?per_page=1";
// Judge the limiter only: any status but 429 counts as an admitted request.
const ONLY_LIMIT = booleanFrom(__ENV, "RL_ONLY_LIMIT", false);
const TAIL = 3;
const SCENARIO = "windows";

if (CREDENTIALS.mode === "admin" && EXTRA !== null && EXTRA > LIMIT) {
  throw new Error("RL_EXTRA: " + EXTRA + " would send past twice RL_LIMIT (" + LIMIT + ") and get the key suspended");
}

const violations = new Counter("ratelimit_violations");
const unexercised = new Counter("ratelimit_unexercised_windows");
const transportErrors = new Counter("ratelimit_transport_errors");
const admittedCount = new Counter("ratelimit_admitted");
const rejectedCount = new Counter("ratelimit_rejected");
const windowsJudged = new Counter("ratelimit_windows");
// k6 skips thresholds of metrics that got no sample: setup() adds a 0, so a run
// whose iterations all died before judging fails instead of passing vacuously.
const runsJudged = new Counter("ratelimit_runs_judged");

// 429 is what this test is for: only other statuses count as failed requests.
http.setResponseCallback(ONLY_LIMIT ? http.expectedStatuses({ min: 100, max: 599 }) : http.expectedStatuses({ min: 200, max: 299 }, 429));

/** @type {import("k6/options").Options} */
export const options = {
  batch: CONCURRENCY,
  batchPerHost: CONCURRENCY,
  setupTimeout: "2m",
  scenarios: {
    [SCENARIO]: {
      executor: "per-vu-iterations",
      vus: KEYS,
      iterations: WINDOWS,
      // Each iteration may wait up to a minute for a fresh window, then runs within it.
      maxDuration: WINDOWS * 2 + 2 + "m",
      gracefulStop: "30s",
    },
  },
  thresholds: {
    ratelimit_violations: ["count==0"],
    ratelimit_unexercised_windows: ["count==0"],
    ratelimit_transport_errors: ["count==0"],
    ratelimit_runs_judged: ["count>=" + KEYS * WINDOWS],
    ["http_req_failed{scenario:" + SCENARIO + "}"]: ["rate==0"],
    ["checks{scenario:" + SCENARIO + "}"]: ["rate==1"],
  },
};

/**
 * @typedef {Object} SetupData
 * @property {string[]} keys
 * @property {boolean} provisioned
 */

/** @returns {SetupData} */
export function setup() {
  runsJudged.add(0);
  violations.add(0);
  unexercised.add(0);
  transportErrors.add(0);
  if (CREDENTIALS.mode === "keys") return { keys: CREDENTIALS.keys, provisioned: false };
  const admin = { adminUrl: CREDENTIALS.adminUrl, adminToken: CREDENTIALS.adminToken };
  const workspace = provisionWorkspace(admin, "k6 ratelimit");
  /** @type {string[]} */
  const keys = [];
  for (let i = 0; i < KEYS; i += 1) {
    keys.push(createKey(admin, workspace, { name: "k6 ratelimit " + (i + 1), scopes: ["docs:read"], rateLimitPerMinute: LIMIT }));
  }
  return { keys, provisioned: true };
}

/** The latest window end this VU's key was used in, unix seconds. */
let lastReset = 0;

/** @param {number} ms */
function sleepMs(ms) {
  if (ms > 0) sleep(ms / 1000);
}

/**
 * Waits until this key's previous window is over and enough of the current
 * one is left for the whole burst; a run straddling two windows is still
 * judged correctly (by reset), but might never get past the limit.
 * @param {boolean} mustAlign
 */
function waitForFreshWindow(mustAlign) {
  const afterLast = lastReset * 1000 + CLOCK_SKEW_MS - Date.now();
  sleepMs(afterLast);
  const left = msUntilNextWindow(Date.now());
  if (mustAlign || left < MIN_WINDOW_LEFT_S * 1000) sleepMs(left + CLOCK_SKEW_MS);
}

/**
 * @param {string} key
 * @param {number} n
 */
function requestFor(key, n) {
  const url = targetFor(URLS, n);
  return {
    method: "GET",
    url: url + PATH,
    params: { headers: authHeaders(key), tags: { name: "GET " + PATH, replica: String(URLS.indexOf(url)) } },
  };
}

/**
 * @param {import("k6/http").RefinedResponse<undefined>} res
 * @param {number} sentAt
 * @param {number} receivedAt
 * @param {number} order
 * @returns {import("./lib/ratelimit-rules.js").Observation}
 */
function observe(res, sentAt, receivedAt, order) {
  return { status: res.status, headers: res.headers, body: typeof res.body === "string" ? res.body : null, sentAt, receivedAt, order };
}

/** @param {SetupData} data */
export default function (data) {
  const keyIndex = (exec.vu.idInTest - 1) % data.keys.length;
  const key = data.keys[keyIndex];
  if (key === undefined) throw new Error("setup() returned no key for VU " + exec.vu.idInTest);
  // A key shared with others may have been used earlier in the current window.
  waitForFreshWindow(!data.provisioned && exec.vu.iterationInScenario === 0);

  /** @type {import("./lib/ratelimit-rules.js").Observation[]} */
  const observations = [];
  let n = keyIndex;
  /** @param {number} order */
  const sendOne = (order) => {
    const request = requestFor(key, n);
    n += 1;
    const sentAt = Date.now();
    const res = http.get(request.url, request.params);
    observations.push(observe(res, sentAt, Date.now(), order));
    return res;
  };

  const first = sendOne(0);
  const announced = readRateLimitHeaders(first.headers).limit;
  const limit = data.provisioned || announced === null ? LIMIT : announced;
  // Never more than twice the limit in a window: past that the key is suspended.
  const extra = Math.min(limit, EXTRA === null ? Math.max(1, Math.ceil(limit / 2)) : EXTRA);
  const total = limit + extra;
  const head = Math.min(SEQUENTIAL, total);
  const tail = Math.min(TAIL, total - head);
  const burst = total - head - tail;

  let order = 1;
  for (let i = 1; i < head; i += 1) sendOne(order++);
  if (burst > 0) {
    const requests = [];
    for (let i = 0; i < burst; i += 1) {
      requests.push(requestFor(key, n));
      n += 1;
    }
    const sentAt = Date.now();
    const responses = http.batch(requests);
    const receivedAt = Date.now();
    for (const res of responses) observations.push(observe(res, sentAt, receivedAt, order));
    order += 1;
  }
  for (let i = 0; i < tail; i += 1) sendOne(order++);

  const verdict = judgeRateLimitRun(observations, {
    expectedLimit: data.provisioned ? LIMIT : undefined,
    fresh: data.provisioned ? true : "infer",
    clockSkewMs: CLOCK_SKEW_MS,
    admittedStatuses: ONLY_LIMIT ? "any" : undefined,
  });

  const tags = { key: String(keyIndex + 1) };
  runsJudged.add(1, tags);
  for (const v of verdict.violations) violations.add(1, { key: tags.key, rule: v.rule });
  verdict.violations.slice(0, 20).forEach((v) => console.error("key " + tags.key + ": " + v.rule + ": " + v.message));
  if (verdict.violations.length > 20) console.error("key " + tags.key + ": " + (verdict.violations.length - 20) + " more violations");

  const saturated = verdict.windows.some((w) => w.saturated);
  unexercised.add(saturated ? 0 : 1, tags);
  if (!saturated) console.error("key " + tags.key + ": no window got more than " + limit + " requests; check the clocks or lower the limit");
  transportErrors.add(observations.filter((o) => o.status === 0).length, tags);
  windowsJudged.add(verdict.windows.length, tags);
  for (const w of verdict.windows) {
    admittedCount.add(w.admitted, tags);
    rejectedCount.add(w.rejected, tags);
    if (w.reset > lastReset) lastReset = w.reset;
  }

  check(verdict, {
    "every rate-limit rule held": (v) => v.violations.length === 0,
    "a window went past the key's limit": () => saturated,
  }, tags);
}

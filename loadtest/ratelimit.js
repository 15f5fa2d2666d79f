// @ts-check
/**
 * Rate-limit exactness. One VU per key; each iteration takes a fresh
 * clock-minute window and sends the key's limit plus some more: a few
 * requests one after another, a burst spread over every replica in BASE_URLS
 * in waves of RL_CONCURRENCY concurrent requests, then a few more one after
 * another. Every response is judged by
 * lib/ratelimit-rules.js (the burst is where a gateway may decide from leases
 * of the quota and report less than remains, which the rules allow above the
 * last tenth of the limit); any broken rule fails a threshold, so k6 exits
 * non-zero. With several BASE_URLS the run also shows that the replicas share
 * one count: what they admitted together in a window is exactly the limit,
 * and every replica admitted its part.
 *
 *   ADMIN_URL=http://localhost:8081 ADMIN_TOKEN=… k6 run loadtest/ratelimit.js
 *   API_KEY=wsk_… k6 run loadtest/ratelimit.js
 */
import http from "k6/http";
import { check, sleep } from "k6";
import exec from "k6/execution";
import { Counter, Rate } from "k6/metrics";
import { authHeaders, createKey, deleteWorkspace, provisionWorkspace, targetFor } from "./lib/api.js";
import { CLEANUP_THRESHOLDS, cleanupNotes } from "./lib/cleanup.js";
import { baseUrls, booleanFrom, credentials, integerFrom } from "./lib/config.js";
import { judgeRateLimitRun, msUntilNextWindow, readRateLimitHeaders } from "./lib/ratelimit-rules.js";
import { summaryOutputs } from "./lib/summary.js";

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
const REPLICAS = URLS.length;
// Each replica gets one of the first requests, all within a fresh key's limit:
// a correct limiter admits them, so every replica must have admitted some.
const EVERY_REPLICA_ADMITS = REPLICAS > 1 && CREDENTIALS.mode === "admin" && Math.min(SEQUENTIAL, LIMIT) >= REPLICAS;
const PROGRESS_EVERY_MS = 10000;

if (CREDENTIALS.mode === "admin" && EXTRA !== null && EXTRA > LIMIT) {
  throw new Error("RL_EXTRA: " + EXTRA + " would send past twice RL_LIMIT (" + LIMIT + ") and get the key suspended");
}

const violations = new Counter("ratelimit_violations");
const unexercised = new Counter("ratelimit_unexercised_windows");
const transportErrors = new Counter("ratelimit_transport_errors");
const admittedCount = new Counter("ratelimit_admitted");
const rejectedCount = new Counter("ratelimit_rejected");
const windowsJudged = new Counter("ratelimit_windows");
// Windows held to the exact count: 1 when what every replica admitted adds up to the limit.
const exactWindows = new Rate("ratelimit_exact_windows");
// k6 skips thresholds of metrics that got no sample: setup() adds a 0, so a run
// whose iterations all died before judging fails instead of passing vacuously.
const runsJudged = new Counter("ratelimit_runs_judged");

// 429 is what this test is for: only other statuses count as failed requests.
http.setResponseCallback(ONLY_LIMIT ? http.expectedStatuses({ min: 100, max: 599 }) : http.expectedStatuses({ min: 200, max: 299 }, 429));

/** @type {Record<string, string[]>} */
const thresholds = {
  ratelimit_violations: ["count==0"],
  ratelimit_unexercised_windows: ["count==0"],
  ratelimit_transport_errors: ["count==0"],
  ratelimit_runs_judged: ["count>=" + KEYS * WINDOWS],
  ratelimit_exact_windows: ["rate==1"],
  ["http_req_failed{scenario:" + SCENARIO + "}"]: ["rate==0"],
  ["checks{scenario:" + SCENARIO + "}"]: ["rate==1"],
};
if (EVERY_REPLICA_ADMITS) {
  for (let i = 0; i < REPLICAS; i += 1) thresholds["ratelimit_admitted{replica:" + i + "}"] = ["count>0"];
}
Object.assign(thresholds, CLEANUP_THRESHOLDS);

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
  thresholds,
};

/**
 * @typedef {Object} SetupData
 * @property {string[]} keys
 * @property {boolean} provisioned
 * @property {import("./lib/api.js").Workspace | null} workspace the one setup() provisioned, deleted by teardown()
 */

/** @returns {SetupData} */
export function setup() {
  runsJudged.add(0);
  violations.add(0);
  unexercised.add(0);
  transportErrors.add(0);
  if (CREDENTIALS.mode === "keys") return { keys: CREDENTIALS.keys, provisioned: false, workspace: null };
  const admin = { adminUrl: CREDENTIALS.adminUrl, adminToken: CREDENTIALS.adminToken };
  const workspace = provisionWorkspace(admin, "k6 ratelimit");
  /** @type {string[]} */
  const keys = [];
  try {
    for (let i = 0; i < KEYS; i += 1) {
      keys.push(createKey(admin, workspace, { name: "k6 ratelimit " + (i + 1), scopes: ["docs:read"], rateLimitPerMinute: LIMIT }));
    }
  } catch (e) {
    // teardown() does not run after a failed setup(): clean up here.
    deleteWorkspace(admin, workspace);
    throw e;
  }
  return { keys, provisioned: true, workspace };
}

/** @param {SetupData} data */
export function teardown(data) {
  if (data.workspace === null || CREDENTIALS.mode !== "admin") return;
  deleteWorkspace({ adminUrl: CREDENTIALS.adminUrl, adminToken: CREDENTIALS.adminToken }, data.workspace);
}

/** The latest window end this VU's key was used in, unix seconds. */
let lastReset = 0;

/** @param {number} ms since the epoch */
function clockTime(ms) {
  return new Date(ms).toISOString().slice(11, 19) + "Z";
}

/**
 * Sleeps, saying why and how long on the console every few seconds, so a run
 * waiting up to a minute for its window is not mistaken for a hung one. Every
 * key waits for the same window: only the first VU speaks.
 * @param {number} ms
 * @param {string} why
 */
function waitFor(ms, why) {
  if (ms <= 0) return;
  const until = Date.now() + ms;
  const speaks = exec.vu.idInTest === 1 && ms >= 1000;
  if (speaks) console.log("waiting " + Math.ceil(ms / 1000) + " s, until " + clockTime(until) + ": " + why);
  for (let left = ms; left > 0; left = until - Date.now()) {
    sleep(Math.min(left, PROGRESS_EVERY_MS) / 1000);
    const still = until - Date.now();
    if (speaks && still >= 1000) console.log("waiting: " + Math.ceil(still / 1000) + " s to go");
  }
}

/**
 * Waits until this key's previous window is over and enough of the current
 * one is left for the whole burst; a run straddling two windows is still
 * judged correctly (by reset), but might never get past the limit.
 * @param {boolean} mustAlign
 */
function waitForFreshWindow(mustAlign) {
  waitFor(lastReset * 1000 + CLOCK_SKEW_MS - Date.now(), "the previous window of the keys is still open");
  const left = msUntilNextWindow(Date.now());
  if (mustAlign) waitFor(left + CLOCK_SKEW_MS, "a key given with API_KEY may have been used in this window already; starting in the next one");
  else if (left < MIN_WINDOW_LEFT_S * 1000) waitFor(left + CLOCK_SKEW_MS, "less than RL_MIN_WINDOW_LEFT=" + MIN_WINDOW_LEFT_S + " s of this window left; starting in the next one");
}

/**
 * @param {string} key
 * @param {number} n
 */
function requestFor(key, n) {
  const url = targetFor(URLS, n);
  const replica = URLS.indexOf(url);
  return {
    method: "GET",
    url: url + PATH,
    replica,
    params: { headers: authHeaders(key), tags: { name: "GET " + PATH, replica: String(replica) } },
  };
}

/**
 * @param {import("k6/http").RefinedResponse<undefined>} res
 * @param {number} sentAt
 * @param {number} receivedAt
 * @param {number} order
 * @param {number} replica
 * @returns {import("./lib/ratelimit-rules.js").Observation}
 */
function observe(res, sentAt, receivedAt, order, replica) {
  return { status: res.status, headers: res.headers, body: typeof res.body === "string" ? res.body : null, sentAt, receivedAt, order, replica };
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
    observations.push(observe(res, sentAt, Date.now(), order, request.replica));
    return res;
  };

  // Alone, so the gateway counts it exactly rather than from a lease: with API_KEY
  // its limit − 1 left is what marks the window as this run's own.
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
  // In waves of RL_CONCURRENCY, each sent once the one before is answered: the
  // judge then knows what was counted before each wave, and holds a leased
  // Remaining to the truth from below as well as from above.
  for (let sent = 0; sent < burst; sent += CONCURRENCY) {
    /** @type {Array<ReturnType<typeof requestFor>>} */
    const requests = [];
    for (let i = 0; i < Math.min(CONCURRENCY, burst - sent); i += 1) {
      requests.push(requestFor(key, n));
      n += 1;
    }
    const sentAt = Date.now();
    const responses = http.batch(requests.map((r) => ({ method: r.method, url: r.url, params: r.params })));
    const receivedAt = Date.now();
    responses.forEach((res, i) => {
      const request = requests[i];
      observations.push(observe(res, sentAt, receivedAt, order, request ? request.replica : -1));
    });
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
    for (const share of w.replicas) {
      const replicaTags = { key: tags.key, replica: String(share.replica) };
      admittedCount.add(share.admitted, replicaTags);
      rejectedCount.add(share.rejected, replicaTags);
    }
    if (w.exact && w.saturated) exactWindows.add(w.admitted === w.limit, tags);
    console.log("key " + tags.key + ", " + describeWindow(w));
    if (w.reset > lastReset) lastReset = w.reset;
  }

  /** @type {Record<string, () => boolean>} */
  const checks = {
    "every rate-limit rule held": () => verdict.violations.length === 0,
    "a window went past the key's limit": () => saturated,
  };
  const exactName = REPLICAS > 1 ? "admitted over all " + REPLICAS + " replicas is exactly the limit" : "admitted is exactly the limit";
  checks[exactName] = () => verdict.windows.every((w) => !(w.exact && w.saturated) || w.admitted === w.limit);
  check(verdict, checks, tags);
}

/**
 * One line per window: what was admitted against the limit, and by which replica.
 * @param {import("./lib/ratelimit-rules.js").WindowSummary} w
 */
function describeWindow(w) {
  const shares = REPLICAS > 1 ? " (" + w.replicas.map((r) => "replica " + r.replica + ": " + r.admitted).join(", ") + ")" : "";
  return (
    "window ending " + clockTime(w.reset * 1000) + ": " + w.admitted + " admitted" + shares + " of a limit of " + w.limit + ", " + w.rejected + " refused with 429" +
    (w.exact ? "" : " (window shared with other traffic: only the bounds judged)")
  );
}

/** @param {import("./lib/summary.js").SummaryData} data */
export function handleSummary(data) {
  const settings = {
    base_urls: URLS,
    keys: CREDENTIALS.mode === "admin" ? KEYS + " provisioned through " + CREDENTIALS.adminUrl : KEYS + " given with API_KEY",
    limit: CREDENTIALS.mode === "admin" ? LIMIT : "each key's own",
    extra: EXTRA === null ? "limit / 2" : EXTRA,
    windows: WINDOWS,
    sequential: SEQUENTIAL,
    concurrency: CONCURRENCY,
    min_window_left_s: MIN_WINDOW_LEFT_S,
    path: PATH,
    only_limit: ONLY_LIMIT,
    clock_skew_ms: CLOCK_SKEW_MS,
  };
  return summaryOutputs(data, { script: "ratelimit", settings, notes: cleanupNotes(data.metrics) }, __ENV, new Date());
}

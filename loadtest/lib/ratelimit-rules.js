// @ts-check
/**
 * The rules of a fixed one-minute rate-limit window, judged from the outside: what a client sees in status codes, headers and
 * bodies. No k6 imports, so the same judge runs inside k6 and in bun tests
 * against real responses.
 *
 * X-RateLimit-Remaining is not a plain countdown. Far from the limit a gateway
 * replica may decide a key's requests from a lease of its quota and then reports
 * less than truly remains (by up to a tenth of the limit, at least 50),
 * possibly the same value twice, possibly less than a later request counted
 * exactly. What holds is: the value is never above the truth, and in the last
 * tenth of the limit (values below limit/10) every request is counted one by
 * one, so the values there are exact, each given once, and decreasing. The
 * rules below judge exactly that, and one promise this gateway makes beyond
 * it: a value is below the truth by at most a band (a tenth of the limit, at
 * least 50), judged where the order of requests shows the truth.
 *
 * Deliberately ES2017 syntax: k6 from v0.48 must parse it unchanged.
 */

export const WINDOW_SECONDS = 60;

/** Every rule a run can break, with what breaking it means. */
export const RULES = {
  missing_header: "X-RateLimit-Limit, X-RateLimit-Remaining or X-RateLimit-Reset is absent",
  malformed_header: "a rate-limit header is not an integer",
  remaining_negative: "X-RateLimit-Remaining is below zero",
  remaining_out_of_range: "X-RateLimit-Remaining is above what the limit allows",
  remaining_not_zero_on_429: "a 429 reports requests left in the window",
  reset_not_minute_boundary: "X-RateLimit-Reset is not a multiple of 60 (windows are aligned to the clock minute)",
  reset_not_window_end: "X-RateLimit-Reset is not the end of the minute in which the request was served",
  missing_retry_after: "a 429 carries no Retry-After in seconds",
  retry_after_not_window_end: "Retry-After on a rate_limit_exceeded 429 does not point at the end of the window",
  wrong_error_code: "a 429 body is not the error object with code rate_limit_exceeded",
  unexpected_status: "an admitted request got a status the run did not expect",
  limit_changed: "X-RateLimit-Limit is not the same on every response of a key",
  limit_mismatch: "X-RateLimit-Limit is not the limit the key was given",
  over_admission: "more requests were admitted in one window than the limit",
  under_admission: "fewer requests were admitted in a window than the limit, although more were sent",
  remaining_not_exact: "in the last tenth of the limit (X-RateLimit-Remaining below limit/10) the admitted requests of a window did not report each of the exact values limit-i once",
  remaining_above_truth: "an admitted request reports more requests left than truly remain once it is counted",
  remaining_far_below_truth: "in a window the run had to itself, an admitted request reports fewer left than truly remained by more than a band (a tenth of the limit, at least 50)",
  remaining_duplicate: "two admitted requests of one window report the same X-RateLimit-Remaining below limit/10",
  remaining_not_decreasing: "in the last tenth of the limit, a later admitted request reports as many or more requests left than an earlier one",
  admitted_after_429: "a request was admitted after an earlier request of the same window got 429",
};

/** @typedef {keyof typeof RULES} RuleId */

/**
 * @typedef {Object} Violation
 * @property {RuleId} rule
 * @property {string} message
 */

/**
 * Header names in any case: k6 canonicalises them ("X-Ratelimit-Limit"),
 * fetch lower-cases them.
 * @typedef {Record<string, string | string[] | undefined>} HeaderBag
 */

/**
 * One request of a run as the client saw it.
 * @typedef {Object} Observation
 * @property {number} status 0 when no response arrived (timeout, connection refused)
 * @property {HeaderBag} headers
 * @property {string | null} [body]
 * @property {number} [sentAt] ms since the epoch, taken before the request left
 * @property {number} [receivedAt] ms since the epoch, taken after the response arrived
 * @property {number} [order] happens-before: every request of a lower order had its
 *   response before any request of a higher order was sent; equal orders ran concurrently
 * @property {number} [replica] which gateway replica answered (index in BASE_URLS)
 */

/**
 * @typedef {Object} JudgeOptions
 * @property {number} [expectedLimit] the limit the key was provisioned with
 * @property {boolean | "infer"} [fresh] true: nothing but this run used the key in any
 *   window it saw, so counts must be exact (default). "infer": exact only for windows in
 *   which an admitted request reports limit-1 left (a shared or pre-existing key); since
 *   Remaining never overstates, only the request counted first in a window can report it.
 *   false: only the bounds that hold whatever else used the key.
 * @property {number} [clockSkewMs] tolerated difference between client and server clocks (default 2000)
 * @property {number[] | "any"} [admittedStatuses] statuses an admitted request may get (default: any 2xx;
 *   "any" when only the rate limit is judged: every authenticated request counts, whatever its status)
 * @property {boolean} [allowSuspension] accept 429 key_suspended (default false: the run
 *   is expected never to send past twice the limit)
 */

/**
 * @typedef {Object} RateLimitHeaders
 * @property {number | null} limit
 * @property {number | null} remaining
 * @property {number | null} reset
 * @property {number | null} retryAfter
 * @property {string[]} missing header names absent
 * @property {string[]} malformed header names present but not an integer
 */

/**
 * @typedef {Object} WindowSummary
 * @property {number} reset the window's end, unix seconds
 * @property {number | null} limit
 * @property {number} total requests answered in this window
 * @property {number} admitted
 * @property {number} rejected 429s
 * @property {boolean} exact whether counts were held to the exact rule
 * @property {boolean} saturated more requests than the limit were answered in it
 * @property {ReplicaShare[]} replicas what each replica answered, by replica index
 *   (empty when the observations do not say which replica answered)
 */

/**
 * @typedef {Object} ReplicaShare
 * @property {number} replica
 * @property {number} admitted
 * @property {number} rejected
 */

/**
 * @typedef {Object} RunVerdict
 * @property {Violation[]} violations
 * @property {WindowSummary[]} windows ordered by reset
 * @property {number} unknown requests whose window cannot be told (no response, or no valid reset)
 */

/**
 * @param {HeaderBag} headers
 * @param {string} name
 * @returns {string | undefined}
 */
export function getHeader(headers, name) {
  const wanted = name.toLowerCase();
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() !== wanted) continue;
    const value = headers[key];
    if (Array.isArray(value)) return value.length === 1 ? value[0] : value.join(", ");
    return value;
  }
  return undefined;
}

const INTEGER = /^-?\d+$/;

/**
 * @param {HeaderBag} headers
 * @returns {RateLimitHeaders}
 */
export function readRateLimitHeaders(headers) {
  /** @type {string[]} */
  const missing = [];
  /** @type {string[]} */
  const malformed = [];
  /** @param {string} name */
  const read = (name) => {
    const raw = getHeader(headers, name);
    if (raw === undefined) {
      missing.push(name);
      return null;
    }
    const text = raw.trim();
    if (!INTEGER.test(text)) {
      malformed.push(name);
      return null;
    }
    return Number(text);
  };
  const limit = read("X-RateLimit-Limit");
  const remaining = read("X-RateLimit-Remaining");
  const reset = read("X-RateLimit-Reset");
  const rawRetryAfter = getHeader(headers, "Retry-After");
  const retryAfter = rawRetryAfter !== undefined && /^\d+$/.test(rawRetryAfter.trim()) ? Number(rawRetryAfter.trim()) : null;
  return { limit, remaining, reset, retryAfter, missing, malformed };
}

/**
 * @param {string | null | undefined} body
 * @returns {string | null} error.code, or null when the body is not the error object
 */
export function errorCodeOf(body) {
  if (typeof body !== "string" || body === "") return null;
  let parsed;
  try {
    parsed = JSON.parse(body);
  } catch (_) {
    return null;
  }
  if (parsed === null || typeof parsed !== "object") return null;
  const error = parsed.error;
  if (error === null || typeof error !== "object") return null;
  if (typeof error.code !== "string" || typeof error.message !== "string") return null;
  return error.code;
}

/** @param {number} seconds */
function isoOf(seconds) {
  return new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
}

/**
 * @param {RuleId} rule
 * @param {string} message
 * @returns {Violation}
 */
function violation(rule, message) {
  return { rule, message };
}

/** @param {number} status @param {JudgeOptions} options */
function isExpectedAdmittedStatus(status, options) {
  if (options.admittedStatuses === "any") return true;
  if (options.admittedStatuses) return options.admittedStatuses.indexOf(status) !== -1;
  return status >= 200 && status < 300;
}

/**
 * The rules one response must keep on its own.
 * @param {Observation} observation
 * @param {JudgeOptions} [options]
 * @returns {Violation[]}
 */
export function checkObservation(observation, options) {
  const opts = options || {};
  const skewMs = opts.clockSkewMs === undefined ? 2000 : opts.clockSkewMs;
  /** @type {Violation[]} */
  const found = [];
  if (observation.status === 0) return found;
  const status = observation.status;
  const h = readRateLimitHeaders(observation.headers);
  const label = "status " + status;

  if (h.missing.length > 0) found.push(violation("missing_header", label + " without " + h.missing.join(", ")));
  if (h.malformed.length > 0) found.push(violation("malformed_header", label + " with a non-integer " + h.malformed.join(", ")));

  if (h.remaining !== null) {
    if (h.remaining < 0) {
      found.push(violation("remaining_negative", label + " reports X-RateLimit-Remaining " + h.remaining));
    } else if (h.limit !== null) {
      const most = status === 429 ? h.limit : h.limit - 1;
      if (h.remaining > most) {
        found.push(violation("remaining_out_of_range", label + " reports " + h.remaining + " left of a limit of " + h.limit + (status === 429 ? "" : " although it was counted")));
      }
    }
    if (status === 429 && h.remaining > 0) {
      found.push(violation("remaining_not_zero_on_429", "a 429 reports X-RateLimit-Remaining " + h.remaining));
    }
  }

  // Every answer's X-RateLimit-Reset is the end of its window, a suspended key's too.
  if (h.reset !== null) {
    if (h.reset % WINDOW_SECONDS !== 0) {
      found.push(violation("reset_not_minute_boundary", label + " reports X-RateLimit-Reset " + h.reset + ", which is " + (h.reset % WINDOW_SECONDS) + " s past a minute"));
    } else if (observation.sentAt !== undefined && observation.receivedAt !== undefined) {
      const earliest = windowEndAt(observation.sentAt - skewMs);
      const latest = windowEndAt(observation.receivedAt + skewMs);
      if (h.reset < earliest || h.reset > latest) {
        found.push(violation("reset_not_window_end", label + " reports X-RateLimit-Reset " + isoOf(h.reset) + " for a request served between " + new Date(observation.sentAt).toISOString() + " and " + new Date(observation.receivedAt).toISOString()));
      }
    }
  }

  if (status === 429) {
    const code = errorCodeOf(observation.body);
    const suspended = code === "key_suspended";
    if (code !== "rate_limit_exceeded" && !(suspended && opts.allowSuspension)) {
      found.push(violation("wrong_error_code", "a 429 with " + (code === null ? "no error object in its body" : "error code " + code)));
    }
    const rawRetryAfter = getHeader(observation.headers, "Retry-After");
    if (h.retryAfter === null) {
      found.push(violation("missing_retry_after", rawRetryAfter === undefined ? "a 429 without Retry-After" : "a 429 with Retry-After " + JSON.stringify(rawRetryAfter) + ", not whole seconds"));
    } else if (!suspended && h.reset !== null && observation.sentAt !== undefined && observation.receivedAt !== undefined) {
      const least = Math.floor(h.reset - (observation.receivedAt + skewMs) / 1000) - 1;
      const most = Math.ceil(h.reset - (observation.sentAt - skewMs) / 1000) + 1;
      if (h.retryAfter < least || h.retryAfter > most) {
        found.push(violation("retry_after_not_window_end", "a 429 says Retry-After " + h.retryAfter + " s, but its window ends " + isoOf(h.reset) + " (" + least + " to " + most + " s away)"));
      }
    }
  } else if (!isExpectedAdmittedStatus(status, opts)) {
    const code = errorCodeOf(observation.body);
    found.push(violation("unexpected_status", "an admitted request got " + label + (code ? " " + code : "")));
  }
  return found;
}

/**
 * The end of the clock minute containing a moment.
 * @param {number} ms milliseconds since the epoch
 * @returns {number} unix seconds
 */
export function windowEndAt(ms) {
  return (Math.floor(ms / 1000 / WINDOW_SECONDS) + 1) * WINDOW_SECONDS;
}

/**
 * Milliseconds from a moment to the start of the next clock-minute window.
 * @param {number} ms
 */
export function msUntilNextWindow(ms) {
  return windowEndAt(ms) * 1000 - ms;
}

/**
 * @template T
 * @param {T[]} values
 * @returns {T | undefined}
 */
function mostCommon(values) {
  /** @type {Map<T, number>} */
  const counts = new Map();
  /** @type {T | undefined} */
  let best;
  let bestCount = 0;
  for (const value of values) {
    const count = (counts.get(value) || 0) + 1;
    counts.set(value, count);
    if (count > bestCount) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}

/**
 * @typedef {Object} Counted
 * @property {Observation} observation
 * @property {RateLimitHeaders} headers
 * @property {boolean} admitted
 */

/**
 * Judges every request one key made in a run: each response on its own, then
 * each window (grouped by the X-RateLimit-Reset the server gave, so a run that
 * straddles a minute is judged window by window).
 *
 * All observations must belong to one key, and unless `fresh` says otherwise
 * nothing but this run may have used the key in the windows it saw.
 *
 * @param {Observation[]} observations
 * @param {JudgeOptions} [options]
 * @returns {RunVerdict}
 */
export function judgeRateLimitRun(observations, options) {
  const opts = options || {};
  const fresh = opts.fresh === undefined ? true : opts.fresh;
  /** @type {Violation[]} */
  const violations = [];
  /** @type {Map<number, Counted[]>} */
  const byReset = new Map();
  /** @type {number[]} */
  const limits = [];
  let unknown = 0;

  for (const observation of observations) {
    const found = checkObservation(observation, opts);
    for (const v of found) violations.push(v);
    if (observation.status === 0) {
      unknown += 1;
      continue;
    }
    const headers = readRateLimitHeaders(observation.headers);
    if (headers.limit !== null) limits.push(headers.limit);
    // A suspended key's X-RateLimit-Reset is the end of its suspension: its window is the minute it was sent in.
    const suspendedAnswer = observation.status === 429 && errorCodeOf(observation.body) === "key_suspended";
    const windowEnd = suspendedAnswer ? (observation.sentAt === undefined ? null : windowEndAt(observation.sentAt)) : headers.reset;
    if (windowEnd === null) {
      unknown += 1;
      continue;
    }
    const group = byReset.get(windowEnd) || [];
    group.push({ observation, headers, admitted: observation.status !== 429 });
    byReset.set(windowEnd, group);
  }

  const distinctLimits = limits.filter((value, index) => limits.indexOf(value) === index);
  if (distinctLimits.length > 1) {
    violations.push(violation("limit_changed", "X-RateLimit-Limit took the values " + distinctLimits.join(", ") + " for one key"));
  }
  if (opts.expectedLimit !== undefined) {
    for (const value of distinctLimits) {
      if (value !== opts.expectedLimit) {
        violations.push(violation("limit_mismatch", "X-RateLimit-Limit " + value + " on a key given a limit of " + opts.expectedLimit));
      }
    }
  }

  /** @type {WindowSummary[]} */
  const windows = [];
  const resets = Array.from(byReset.keys()).sort((a, b) => a - b);
  for (const reset of resets) {
    const group = byReset.get(reset) || [];
    windows.push(judgeWindow(reset, group, opts, fresh, unknown, violations));
  }
  return { violations, windows, unknown };
}

/**
 * @param {number} reset
 * @param {Counted[]} group
 * @param {JudgeOptions} opts
 * @param {boolean | "infer"} fresh
 * @param {number} unknown
 * @param {Violation[]} violations
 * @returns {WindowSummary}
 */
function judgeWindow(reset, group, opts, fresh, unknown, violations) {
  const where = "window ending " + isoOf(reset) + ": ";
  const windowLimits = /** @type {number[]} */ (group.map((c) => c.headers.limit).filter((l) => l !== null));
  const limit = opts.expectedLimit !== undefined ? opts.expectedLimit : mostCommon(windowLimits);
  const admitted = group.filter((c) => c.admitted);
  const rejected = group.length - admitted.length;
  const remainings = /** @type {number[]} */ (admitted.map((c) => c.headers.remaining).filter((r) => r !== null));

  let exact = false;
  if (limit !== undefined) {
    exact = fresh === true || (fresh === "infer" && remainings.indexOf(limit - 1) !== -1);
    if (admitted.length > limit) {
      violations.push(violation("over_admission", where + admitted.length + " requests admitted, limit " + limit));
    }
    if (exact) {
      const owed = Math.min(group.length, limit) - unknown;
      if (admitted.length < owed) {
        violations.push(violation("under_admission", where + admitted.length + " of " + group.length + " requests admitted, limit " + limit));
      }
    }
    if (exact && unknown === 0 && remainings.length === admitted.length && admitted.length <= limit) {
      judgeLastTenth(where, limit, admitted.length, remainings, violations);
    } else {
      const seen = new Set();
      for (const r of remainings) {
        if (!inLastTenth(r, limit)) continue;
        if (seen.has(r)) {
          violations.push(violation("remaining_duplicate", where + "two admitted requests both left " + r + ", below a tenth of the limit " + limit + " where every request is counted on its own"));
          break;
        }
        seen.add(r);
      }
    }
    // Holds whatever else used the key or went unanswered: other requests only lower the truth.
    judgeAboveTruth(where, limit, remainings, violations);
  }

  judgeOrder(where, group, limit, exact && unknown === 0, violations);

  return {
    reset,
    limit: limit === undefined ? null : limit,
    total: group.length,
    admitted: admitted.length,
    rejected,
    exact,
    saturated: limit !== undefined && group.length > limit,
    replicas: replicaShares(group),
  };
}

/**
 * @param {Counted[]} group
 * @returns {ReplicaShare[]}
 */
function replicaShares(group) {
  /** @type {Map<number, ReplicaShare>} */
  const byReplica = new Map();
  for (const c of group) {
    const replica = c.observation.replica;
    if (replica === undefined) continue;
    const share = byReplica.get(replica) || { replica, admitted: 0, rejected: 0 };
    if (c.admitted) share.admitted += 1;
    else share.rejected += 1;
    byReplica.set(replica, share);
  }
  return Array.from(byReplica.values()).sort((a, b) => a.replica - b.replica);
}

/**
 * Whether a Remaining value lies in the last tenth of the limit, where every
 * request is counted one by one. Times ten rather than limit / 10, so a limit
 * that is not a multiple of ten needs no rounding.
 * @param {number} remaining
 * @param {number} limit
 */
function inLastTenth(remaining, limit) {
  return remaining * 10 < limit;
}

/**
 * In a window where every request is known, admitted request i (in count
 * order) leaves limit − i. Above the last tenth a leased request may report
 * less than that, so only the values below limit/10 can be held to the exact
 * figures, each once.
 * @param {string} where
 * @param {number} limit
 * @param {number} admitted
 * @param {number[]} remainings
 * @param {Violation[]} violations
 */
function judgeLastTenth(where, limit, admitted, remainings, violations) {
  /** @type {number[]} */
  const expected = [];
  for (let i = 1; i <= admitted; i += 1) {
    if (inLastTenth(limit - i, limit)) expected.push(limit - i);
  }
  const reported = remainings.filter((r) => inLastTenth(r, limit)).sort((a, b) => b - a);
  const missing = without(expected, reported);
  const extra = without(reported, expected);
  if (missing.length === 0 && extra.length === 0) return;
  let should = "each of " + expected[0] + " down to " + expected[expected.length - 1] + " once";
  if (expected.length === 0) should = "no value below " + limit / 10;
  else if (expected.length === 1) should = expected[0] + " once";
  /** @type {string[]} */
  const wrong = [];
  if (missing.length > 0) wrong.push("never " + describeList(missing));
  if (extra.length > 0) wrong.push("also " + describeList(extra));
  violations.push(violation("remaining_not_exact", where + admitted + " admitted requests of a limit of " + limit + " should report " + should + " in the last tenth of the limit; they reported " + wrong.join(", ")));
}

/**
 * Order-free, so it holds for concurrent requests too: of the i requests that
 * report the i highest values, one was counted i-th or later and truly leaves
 * at most limit − i, and its value is at least the i-th highest. So the i-th
 * highest cannot exceed limit − i.
 * @param {string} where
 * @param {number} limit
 * @param {number[]} remainings
 * @param {Violation[]} violations
 */
function judgeAboveTruth(where, limit, remainings, violations) {
  const sorted = remainings.slice().sort((a, b) => b - a);
  const judged = Math.min(sorted.length, limit);
  for (let i = 0; i < judged; i += 1) {
    const value = /** @type {number} */ (sorted[i]);
    // A value of the whole limit or more is remaining_out_of_range's to report.
    if (value > limit - 1 - i && value < limit) {
      const n = i + 1;
      violations.push(violation("remaining_above_truth", where + n + " admitted " + (n === 1 ? "request reports " : "requests report ") + value + " or more left, but once " + n + " " + (n === 1 ? "is" : "are") + " counted at most " + (limit - n) + " remain"));
      return;
    }
  }
}

/**
 * The values of `values` that `other` does not account for, one for one.
 * @param {number[]} values
 * @param {number[]} other
 * @returns {number[]}
 */
function without(values, other) {
  /** @type {Map<number, number>} */
  const left = new Map();
  for (const v of other) left.set(v, (left.get(v) || 0) + 1);
  /** @type {number[]} */
  const rest = [];
  for (const v of values) {
    const count = left.get(v) || 0;
    if (count > 0) left.set(v, count - 1);
    else rest.push(v);
  }
  return rest;
}

/**
 * How far below the truth a leased value may be: a tenth of the limit (what
 * the ceiling of nine tenths leaves), at least 50.
 * @param {number} limit
 */
export function leaseBand(limit) {
  return Math.max(limit - Math.floor((limit * 9) / 10), 50);
}

/**
 * What the order of requests proves: a request sent after k admitted ones had
 * their answers is counted after them, so it leaves at most limit − k − 1; in
 * the last tenth, where every request is counted on its own, a later one
 * leaves fewer; and once one is refused no later one may be admitted. Above
 * the last tenth a later request may report more than an earlier one: the
 * earlier one may have been decided from a lease. In a window whose every
 * request is known (`whole`), a request is counted before any of a later
 * order is sent, so it leaves at least limit − k − m, m the admitted requests
 * of its own order: its value may be lower by at most a band.
 * @param {string} where
 * @param {Counted[]} group
 * @param {number | undefined} limit
 * @param {boolean} whole
 * @param {Violation[]} violations
 */
function judgeOrder(where, group, limit, whole, violations) {
  /** @type {Map<number, Counted[]>} */
  const byOrder = new Map();
  for (const c of group) {
    const order = c.observation.order;
    if (order === undefined) continue;
    const same = byOrder.get(order) || [];
    same.push(c);
    byOrder.set(order, same);
  }
  const orders = Array.from(byOrder.keys()).sort((a, b) => a - b);
  // The lower bound needs every request of the window in the order: one without could have been counted first.
  const bounded = whole && group.every((c) => c.observation.order !== undefined);
  let admittedBefore = 0;
  let leastTailBefore = Infinity;
  let refusedBefore = false;
  let reportedAboveTruth = false;
  let reportedDecrease = false;
  let reportedAdmission = false;
  let reportedFarBelow = false;
  for (const order of orders) {
    const here = byOrder.get(order) || [];
    let admittedHere = 0;
    let leastTailHere = Infinity;
    let refusedHere = false;
    const admittedAtOnce = here.filter((c) => c.admitted).length;
    for (const c of here) {
      if (!c.admitted) {
        refusedHere = true;
        continue;
      }
      admittedHere += 1;
      if (refusedBefore && !reportedAdmission) {
        violations.push(violation("admitted_after_429", where + "a request sent after a 429 was admitted"));
        reportedAdmission = true;
      }
      const remaining = c.headers.remaining;
      if (remaining === null || limit === undefined) continue;
      // Past the limit over_admission already speaks, and a value of the whole limit
      // or more is remaining_out_of_range's: this would only repeat them.
      const most = limit - admittedBefore - 1;
      if (most >= 0 && remaining > most && remaining < limit && !reportedAboveTruth) {
        const answered = admittedBefore === 1 ? "1 admitted request had" : admittedBefore + " admitted requests had";
        violations.push(violation("remaining_above_truth", where + "a request sent after " + answered + " been answered reports " + remaining + " left, at most " + most + " remain"));
        reportedAboveTruth = true;
      }
      // Counted after at most the answers before it and the others of its own order.
      const remainedAtLeast = limit - admittedBefore - admittedAtOnce;
      if (bounded && remaining < remainedAtLeast - leaseBand(limit) && !reportedFarBelow) {
        violations.push(violation("remaining_far_below_truth", where + "a request sent after " + admittedBefore + " admitted requests had been answered, with " + (admittedAtOnce - 1) + " others admitted at once, reports " + remaining + " left; at least " + remainedAtLeast + " remained, and a band is " + leaseBand(limit)));
        reportedFarBelow = true;
      }
      if (!inLastTenth(remaining, limit)) continue;
      if (remaining >= leastTailBefore && !reportedDecrease) {
        violations.push(violation("remaining_not_decreasing", where + "a request left " + remaining + " after an earlier one had left " + leastTailBefore + ", below a tenth of the limit " + limit));
        reportedDecrease = true;
      }
      if (remaining < leastTailHere) leastTailHere = remaining;
    }
    admittedBefore += admittedHere;
    if (leastTailHere < leastTailBefore) leastTailBefore = leastTailHere;
    if (refusedHere) refusedBefore = true;
  }
}

/** @param {number[]} values */
function describeList(values) {
  if (values.length <= 12) return values.join(", ");
  return values.slice(0, 10).join(", ") + ", … (" + values.length + " in all)";
}

import { describe, expect, test } from "bun:test";
import {
  RULES,
  checkObservation,
  getHeader,
  judgeRateLimitRun,
  leaseBand,
  msUntilNextWindow,
  readRateLimitHeaders,
  windowEndAt,
  type JudgeOptions,
  type Observation,
  type RuleId,
} from "./ratelimit-rules.js";

const MINUTE = 60_000;
/** 2030-01-01T10:00:00Z, a window start. */
const WINDOW_START = Date.UTC(2030, 0, 1, 10, 0, 0);

interface WindowSpec {
  limit: number;
  sent: number;
  /** ms after WINDOW_START of the first request */
  startOffset?: number;
  /** ms between two requests */
  spacing?: number;
  /** requests the key had already used in this window before the run */
  usedBefore?: number;
  firstOrder?: number;
}

/**
 * What a correct gateway answers to `sent` requests sent one after another
 * within one window: limit admitted counting down, the rest 429.
 */
function correctWindow(spec: WindowSpec): Observation[] {
  const spacing = spec.spacing ?? 10;
  const start = WINDOW_START + (spec.startOffset ?? 5_000);
  const observations: Observation[] = [];
  for (let i = 0; i < spec.sent; i += 1) {
    const sentAt = start + i * spacing;
    const servedAt = sentAt + 2;
    const count = (spec.usedBefore ?? 0) + i + 1;
    const reset = windowEndAt(servedAt);
    const headers: Record<string, string> = {
      "X-RateLimit-Limit": String(spec.limit),
      "X-RateLimit-Remaining": String(Math.max(0, spec.limit - count)),
      "X-RateLimit-Reset": String(reset),
    };
    let status = 200;
    let body = JSON.stringify({ data: [], total: 0, page: 1, per_page: 1 });
    if (count > spec.limit) {
      status = 429;
      headers["Retry-After"] = String(Math.max(1, reset - Math.floor(servedAt / 1000)));
      body = JSON.stringify({ error: { code: "rate_limit_exceeded", message: "Rate limit exceeded." } });
    }
    observations.push({ status, headers, body, sentAt, receivedAt: servedAt + 2, order: (spec.firstOrder ?? 0) + i });
  }
  return observations;
}

function rulesOf(observations: Observation[], options?: JudgeOptions): RuleId[] {
  return judgeRateLimitRun(observations, options).violations.map((v) => v.rule);
}

/** The observation as a key_suspended 429: X-RateLimit-Reset is the end of the suspension Retry-After points at. */
function suspendedFor(observation: Observation, seconds: number): Observation {
  return {
    ...withHeader(observation, "Retry-After", String(seconds)),
    status: 429,
    body: JSON.stringify({ error: { code: "key_suspended", message: "Suspended." } }),
  };
}

function withHeader(observation: Observation, name: string, value: string | undefined): Observation {
  const headers = { ...observation.headers };
  if (value === undefined) delete headers[name];
  else headers[name] = value;
  return { ...observation, headers };
}

/** Requests answered in the same instant, so their order is unknown. */
function concurrent(observations: Observation[], order: number): Observation[] {
  const sentAt = Math.min(...observations.map((o) => o.sentAt ?? 0));
  const receivedAt = Math.max(...observations.map((o) => o.receivedAt ?? 0));
  return observations.map((o) => ({ ...o, sentAt, receivedAt, order }));
}

function shuffled<T>(items: T[]): T[] {
  const copy = items.slice();
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = (i * 7919) % (i + 1);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

function withRemaining(observation: Observation, remaining: number): Observation {
  return withHeader(observation, "X-RateLimit-Remaining", String(remaining));
}

function remainingOf(observation: Observation): number {
  return Number(observation.headers["X-RateLimit-Remaining"]);
}

const LEASED_LIMIT = 500;
/** The count a lease granted at a count of 1 keeps the key under: that count plus a band (a tenth of the limit, at least 50). */
const LEASE_TOP = 1 + leaseBand(LEASED_LIMIT);
/** Beside the units its lease has left, what a request decided from that lease reports. */
const LEASE_FLOOR = LEASED_LIMIT - LEASE_TOP;
const LEASE_UNITS = 16;

/**
 * A fresh window of a key limited to 500 as a gateway with leases answers it:
 * a lone request counted exactly (499 left), a concurrent burst of 16 decided
 * from a lease of 16 units granted at a count of 1 (449 + 15 down to 449 + 0,
 * below the 498 … 483 that truly remain, by less than a band of 50), then
 * requests one after another, counted exactly from
 * 482 down to 0, and 20 refused. `leases` splits the burst into that many
 * leases of equal size, one per replica, reporting the same values.
 */
function leasedWindow(leases = 1): Observation[] {
  const exact = correctWindow({ limit: LEASED_LIMIT, sent: LEASED_LIMIT + 20 });
  const perLease = LEASE_UNITS / leases;
  const burst = concurrent(
    exact.slice(1, 1 + LEASE_UNITS).map((o, i) => withRemaining(o, LEASE_FLOOR + perLease - 1 - (i % perLease))),
    1,
  );
  const after = exact.slice(1 + LEASE_UNITS).map((o, i) => ({ ...o, order: 2 + i }));
  return [exact[0]!, ...burst, ...after];
}

/** The index in leasedWindow() of the request counted exactly to leave `remaining` (below 483). */
function countedToLeave(remaining: number): number {
  return LEASED_LIMIT - 1 - remaining;
}

/** leasedWindow() with every request from the one leaving `from` on answered concurrently, after the earlier ones. */
function leasedWithConcurrentTail(from: number): Observation[] {
  const window = leasedWindow();
  const start = countedToLeave(from);
  const head = window.slice(0, start);
  const lastOrder = head[head.length - 1]!.order!;
  return [...head, ...concurrent(window.slice(start), lastOrder + 1)];
}

/** leasedWithConcurrentTail(60) up to the request leaving 20: 480 admitted, the last tenth only partly used. */
function stoppedShort(): Observation[] {
  return leasedWithConcurrentTail(60).slice(0, countedToLeave(20) + 1);
}

const leasedRules: JudgeOptions = { expectedLimit: LEASED_LIMIT };

describe("a window kept to the rules", () => {
  test("when exactly the limit is admitted and the rest get 429, then no rule is broken", () => {
    const verdict = judgeRateLimitRun(correctWindow({ limit: 30, sent: 45 }), { expectedLimit: 30 });
    expect(verdict.violations).toEqual([]);
    expect(verdict.windows).toEqual([
      { reset: windowEndAt(WINDOW_START), limit: 30, total: 45, admitted: 30, rejected: 15, exact: true, saturated: true, replicas: [] },
    ]);
  });

  test("when requests go round robin over three replicas, then the window tells what each replica admitted and refused", () => {
    const observations = correctWindow({ limit: 30, sent: 47 }).map((o, i) => ({ ...o, replica: i % 3 }));
    const verdict = judgeRateLimitRun(observations, { expectedLimit: 30 });
    expect(verdict.violations).toEqual([]);
    expect(verdict.windows.map((w) => w.replicas)).toEqual([
      [
        { replica: 0, admitted: 10, rejected: 6 },
        { replica: 1, admitted: 10, rejected: 6 },
        { replica: 2, admitted: 10, rejected: 5 },
      ],
    ]);
  });

  test("when headers arrive in k6's canonical case, then they are read like any other case", () => {
    const observation = correctWindow({ limit: 5, sent: 1 })[0]!;
    const k6Style: Observation = {
      ...observation,
      headers: { "X-Ratelimit-Limit": "5", "X-Ratelimit-Remaining": "4", "X-Ratelimit-Reset": String(windowEndAt(WINDOW_START)) },
    };
    expect(readRateLimitHeaders(k6Style.headers)).toMatchObject({ limit: 5, remaining: 4, reset: windowEndAt(WINDOW_START) });
    expect(checkObservation(k6Style)).toEqual([]);
    expect(getHeader({ "retry-after": "3" }, "Retry-After")).toBe("3");
  });

  test("when a burst is answered concurrently in any order, then the window is still exact", () => {
    const head = correctWindow({ limit: 20, sent: 3 });
    const burst = concurrent(shuffled(correctWindow({ limit: 20, sent: 30 }).slice(3, 27)), 3);
    const tail = correctWindow({ limit: 20, sent: 30 }).slice(27).map((o, i) => ({ ...o, order: 4 + i }));
    expect(rulesOf([...head, ...burst, ...tail], { expectedLimit: 20 })).toEqual([]);
  });

  test("when the run straddles two windows, then each is judged by its own reset", () => {
    const endOfFirst = correctWindow({ limit: 10, sent: 4, startOffset: 59_000, spacing: 100 });
    const second = correctWindow({ limit: 10, sent: 14, startOffset: MINUTE + 100, firstOrder: 4 });
    const verdict = judgeRateLimitRun([...endOfFirst, ...second], { expectedLimit: 10 });
    expect(verdict.violations).toEqual([]);
    expect(verdict.windows.map((w) => [w.reset, w.total, w.admitted, w.rejected, w.saturated])).toEqual([
      [windowEndAt(WINDOW_START), 4, 4, 0, false],
      [windowEndAt(WINDOW_START + MINUTE), 14, 10, 4, true],
    ]);
  });

  test("when a key used by others is judged with fresh inferred, then a window it joined late is not held to exact counts", () => {
    const joinedLate = correctWindow({ limit: 10, sent: 12, usedBefore: 5 });
    expect(rulesOf(joinedLate, { fresh: "infer" })).toEqual([]);
    expect(rulesOf(joinedLate, { fresh: true })).toContain("under_admission");
  });

  test("when some requests got no response, then the window's counts are bounded instead of exact", () => {
    const answered = correctWindow({ limit: 10, sent: 15 });
    const lost = { ...answered[3], status: 0, headers: {}, body: null };
    const observations = [...answered.slice(0, 3), lost, ...answered.slice(4)];
    const verdict = judgeRateLimitRun(observations, { expectedLimit: 10 });
    expect(verdict.unknown).toBe(1);
    expect(verdict.violations).toEqual([]);
  });

  test("when only the limit is judged, then an upstream error still counts as an admitted request", () => {
    const observations = correctWindow({ limit: 5, sent: 7 }).map((o, i) => (i === 1 ? { ...o, status: 503 } : o));
    expect(rulesOf(observations, { admittedStatuses: "any" })).toEqual([]);
    expect(rulesOf(observations)).toEqual(["unexpected_status"]);
  });

  test("when a key is suspended and suspension is allowed, then key_suspended 429s pass", () => {
    const observations = correctWindow({ limit: 2, sent: 3 });
    observations[2] = suspendedFor(observations[2]!, 300);
    expect(rulesOf(observations, { allowSuspension: true })).toEqual([]);
    expect(rulesOf(observations)).toContain("wrong_error_code");
  });
});

describe("a window decided in part from leases of the quota", () => {
  test("when a burst is decided from a lease and reports the lease's floor plus its units left, then the window passes and is exact", () => {
    const window = leasedWindow();
    expect(window.slice(0, 3).map(remainingOf)).toEqual([LEASED_LIMIT - 1, LEASE_FLOOR + 15, LEASE_FLOOR + 14]);
    const verdict = judgeRateLimitRun(window, leasedRules);
    expect(verdict.violations).toEqual([]);
    expect(verdict.windows.map((w) => [w.admitted, w.rejected, w.exact])).toEqual([[LEASED_LIMIT, 20, true]]);
  });

  test("when two replicas' leases report the same values above the last tenth, then the window passes", () => {
    const window = leasedWindow(2);
    const burst = window.filter((o) => o.order === 1);
    expect(burst.filter((o) => remainingOf(o) === LEASE_FLOOR)).toHaveLength(2);
    expect(rulesOf(window, leasedRules)).toEqual([]);
    expect(rulesOf(window, { ...leasedRules, fresh: false })).toEqual([]);
  });

  test("when a leased request reports less than a later request counted exactly, above the last tenth, then the window passes", () => {
    const window = leasedWindow();
    const lastLeased = window[LEASE_UNITS]!;
    const firstCountedAfter = window[LEASE_UNITS + 1]!;
    expect(firstCountedAfter.order!).toBeGreaterThan(lastLeased.order!);
    expect(remainingOf(firstCountedAfter)).toBeGreaterThan(remainingOf(lastLeased));
    expect(rulesOf(window, leasedRules)).toEqual([]);
  });

  test("when the window is not known to be the run's own, then the same leased pattern passes the bounds", () => {
    expect(rulesOf(leasedWindow(), { ...leasedRules, fresh: "infer" })).toEqual([]);
    expect(rulesOf(leasedWindow(), { ...leasedRules, fresh: false })).toEqual([]);
  });

  test("when a limit is not a multiple of ten, then only the values below limit/10 are held to be given once", () => {
    // Limit 25: a lease reports at least 25 − ⌊22.5⌋ = 3, so 2, 1 and 0 are the last tenth.
    const exact = correctWindow({ limit: 25, sent: 25 });
    const leasedThreeTwice = [...exact.slice(0, 2), ...concurrent([withRemaining(exact[2]!, 3), withRemaining(exact[3]!, 3)], 2), ...exact.slice(4).map((o, i) => ({ ...o, order: 3 + i }))];
    expect(rulesOf(leasedThreeTwice, { expectedLimit: 25 })).toEqual([]);
    const twoTwice = exact.map((o, i) => (i === 23 ? withRemaining(o, 2) : o));
    expect(rulesOf(twoTwice, { expectedLimit: 25, fresh: false })).toContain("remaining_duplicate");
  });

  test("when the last tenth is answered concurrently in any order, then its exact values still pass", () => {
    const window = leasedWithConcurrentTail(60);
    const shuffledTail = [...window.slice(0, countedToLeave(60)), ...shuffled(window.slice(countedToLeave(60)))];
    expect(rulesOf(shuffledTail, leasedRules)).toEqual([]);
  });
});

interface BrokenCase {
  when: string;
  rule: RuleId;
  observations: () => Observation[];
  options?: JudgeOptions;
}

const LIMIT = 10;
const good = () => correctWindow({ limit: LIMIT, sent: 15 });
const firstRejected = 10;

const brokenCases: BrokenCase[] = [
  {
    when: "X-RateLimit-Remaining is absent",
    rule: "missing_header",
    observations: () => good().map((o, i) => (i === 2 ? withHeader(o, "X-RateLimit-Remaining", undefined) : o)),
  },
  {
    when: "X-RateLimit-Reset is not a number",
    rule: "malformed_header",
    observations: () => good().map((o, i) => (i === 2 ? withHeader(o, "X-RateLimit-Reset", "soon") : o)),
  },
  {
    when: "X-RateLimit-Remaining goes negative past the limit",
    rule: "remaining_negative",
    observations: () => good().map((o, i) => (i >= firstRejected ? withHeader(o, "X-RateLimit-Remaining", String(firstRejected - 1 - i)) : o)),
  },
  {
    when: "an admitted request reports the whole limit left, as if it was not counted",
    rule: "remaining_out_of_range",
    observations: () => good().map((o, i) => (i === 0 ? withHeader(o, "X-RateLimit-Remaining", String(LIMIT)) : o)),
  },
  {
    when: "a 429 reports requests left",
    rule: "remaining_not_zero_on_429",
    observations: () => good().map((o, i) => (i === firstRejected ? withHeader(o, "X-RateLimit-Remaining", "1") : o)),
  },
  {
    when: "X-RateLimit-Reset is not at a minute boundary",
    rule: "reset_not_minute_boundary",
    observations: () => good().map((o) => withHeader(o, "X-RateLimit-Reset", String(windowEndAt(WINDOW_START) + 7))),
  },
  {
    when: "X-RateLimit-Reset is a minute boundary, but not the end of the current window",
    rule: "reset_not_window_end",
    observations: () => good().map((o) => withHeader(o, "X-RateLimit-Reset", String(windowEndAt(WINDOW_START) + 60))),
  },
  {
    when: "a 429 has no Retry-After",
    rule: "missing_retry_after",
    observations: () => good().map((o, i) => (i === 12 ? withHeader(o, "Retry-After", undefined) : o)),
  },
  {
    when: "Retry-After is an HTTP date instead of seconds",
    rule: "missing_retry_after",
    observations: () => good().map((o, i) => (i === 12 ? withHeader(o, "Retry-After", "Wed, 01 Jan 2030 10:01:00 GMT") : o)),
  },
  {
    when: "Retry-After on a rate_limit_exceeded 429 points far past the window's end",
    rule: "retry_after_not_window_end",
    observations: () => good().map((o, i) => (i === 12 ? withHeader(o, "Retry-After", "3600") : o)),
  },
  {
    when: "Retry-After on a rate_limit_exceeded 429 says retry at once, with most of the window left",
    rule: "retry_after_not_window_end",
    observations: () => good().map((o, i) => (i === 12 ? withHeader(o, "Retry-After", "0") : o)),
  },
  {
    when: "a key_suspended 429 reports a later minute, when its suspension ends, as X-RateLimit-Reset, not the end of the window",
    rule: "reset_not_window_end",
    options: { allowSuspension: true },
    observations: () => good().map((o, i) => (i === 12 ? withHeader(suspendedFor(o, 300), "X-RateLimit-Reset", String(windowEndAt(WINDOW_START) + 300)) : o)),
  },
  {
    when: "a 429 body carries another error code",
    rule: "wrong_error_code",
    observations: () => good().map((o, i) => (i === 12 ? { ...o, body: JSON.stringify({ error: { code: "too_many", message: "x" } }) } : o)),
  },
  {
    when: "a 429 body is not JSON",
    rule: "wrong_error_code",
    observations: () => good().map((o, i) => (i === 12 ? { ...o, body: "Too Many Requests" } : o)),
  },
  {
    when: "an admitted request fails upstream",
    rule: "unexpected_status",
    observations: () => good().map((o, i) => (i === 4 ? { ...o, status: 502 } : o)),
  },
  {
    when: "X-RateLimit-Limit changes within a run",
    rule: "limit_changed",
    observations: () => good().map((o, i) => (i === 12 ? withHeader(o, "X-RateLimit-Limit", String(LIMIT + 1)) : o)),
  },
  {
    when: "X-RateLimit-Limit is not the limit the key was given",
    rule: "limit_mismatch",
    observations: () => correctWindow({ limit: LIMIT, sent: 15 }),
    options: { expectedLimit: LIMIT * 2 },
  },
  {
    when: "one request more than the limit is admitted",
    rule: "over_admission",
    observations: () =>
      good().map((o, i) => (i === firstRejected ? { ...withHeader(withHeader(o, "Retry-After", undefined), "X-RateLimit-Remaining", "0"), status: 200, body: "{}" } : o)),
  },
  {
    when: "429s start before the limit is reached in a window the run had to itself",
    rule: "under_admission",
    observations: () =>
      good().map((o, i) =>
        i === firstRejected - 1
          ? { ...withHeader(withHeader(o, "Retry-After", "55"), "X-RateLimit-Remaining", "0"), status: 429, body: JSON.stringify({ error: { code: "rate_limit_exceeded", message: "x" } }) }
          : o,
      ),
  },
  {
    when: "a request in the last tenth of the limit reports a lease's figure instead of its exact count",
    rule: "remaining_not_exact",
    observations: () => leasedWithConcurrentTail(60).map((o, i) => (i === countedToLeave(30) ? withRemaining(o, 55) : o)),
    options: leasedRules,
  },
  {
    when: "a request in the last tenth of the limit reports fewer left than it leaves, in a window that stopped short of the limit",
    rule: "remaining_not_exact",
    observations: () => stoppedShort().map((o, i) => (i === countedToLeave(30) ? withRemaining(o, 10) : o)),
    options: leasedRules,
  },
  {
    when: "two admitted requests of a window the run had to itself report the same remaining in the last tenth of the limit",
    rule: "remaining_not_exact",
    observations: () => stoppedShort().map((o, i) => (i === countedToLeave(30) ? withRemaining(o, 25) : o)),
    options: leasedRules,
  },
  {
    when: "a request in the last tenth of the limit is counted twice, so its window admits one fewer and skips a remaining",
    rule: "remaining_not_exact",
    observations: () => {
      const window = leasedWithConcurrentTail(60);
      const refusal = window[window.length - 1]!;
      return window.map((o, i) => {
        const remaining = remainingOf(o);
        if (o.status !== 200 || i < countedToLeave(11)) return o;
        if (remaining > 0) return withRemaining(o, remaining - 1);
        return { ...o, status: 429, headers: refusal.headers, body: refusal.body };
      });
    },
    options: leasedRules,
  },
  {
    when: "a request of a leased burst reports more than a band below what remained when it was counted",
    rule: "remaining_far_below_truth",
    observations: () => leasedWindow().map((o, i) => (i === 3 ? withRemaining(o, LEASED_LIMIT - 1 - LEASE_UNITS - leaseBand(LEASED_LIMIT) - 1) : o)),
    options: leasedRules,
  },
  {
    when: "a leased burst reports a tenth of the limit plus its units left, as leases did before they took the count up a band at a time",
    rule: "remaining_far_below_truth",
    observations: () => leasedWindow().map((o) => (o.order === 1 ? withRemaining(o, remainingOf(o) - LEASE_FLOOR + LEASED_LIMIT / 10) : o)),
    options: leasedRules,
  },
  {
    when: "two requests of one concurrent burst both report the limit less one left",
    rule: "remaining_above_truth",
    observations: () => {
      const window = leasedWindow();
      const burst = concurrent(window.slice(0, 1 + LEASE_UNITS), 0).map((o, i) => (i === 5 ? withRemaining(o, LEASED_LIMIT - 1) : o));
      return [...burst, ...window.slice(1 + LEASE_UNITS)];
    },
    options: leasedRules,
  },
  {
    when: "a request sent after another's answer reports the limit less one left, though the earlier one reported less",
    rule: "remaining_above_truth",
    observations: () => good().map((o, i) => (i === 0 ? withRemaining(o, LIMIT - 5) : i === 1 ? withRemaining(o, LIMIT - 1) : o)),
  },
  {
    when: "two admitted requests of a window the run shared report the same remaining in the last tenth of the limit",
    rule: "remaining_duplicate",
    observations: () => {
      const burst = concurrent(correctWindow({ limit: LEASED_LIMIT, sent: 8, usedBefore: 470 }), 0);
      return burst.map((o, i) => (i === 1 ? withRemaining(o, remainingOf(burst[0]!)) : o));
    },
    options: { ...leasedRules, fresh: false },
  },
  {
    when: "in the last tenth of the limit a later request reports more requests left than an earlier one",
    rule: "remaining_not_decreasing",
    observations: () => {
      const window = correctWindow({ limit: LEASED_LIMIT, sent: 8, usedBefore: 470 });
      return window.map((o, i) => (i === 2 ? withRemaining(o, remainingOf(window[3]!)) : i === 3 ? withRemaining(o, remainingOf(window[2]!)) : o));
    },
    options: { ...leasedRules, fresh: false },
  },
  {
    when: "a request is admitted after an earlier one of the same window got 429",
    rule: "admitted_after_429",
    observations: () => {
      const window = good();
      const early429 = window[12]!;
      const [fifth, sixth] = [window[4]!, window[5]!];
      return [
        ...window.slice(0, 4),
        { ...early429, order: 4, sentAt: fifth.sentAt, receivedAt: fifth.receivedAt },
        { ...fifth, order: 5, sentAt: sixth.sentAt, receivedAt: sixth.receivedAt },
      ];
    },
    options: { fresh: false },
  },
];

describe("a window that breaks a rule", () => {
  for (const c of brokenCases) {
    test(`when ${c.when}, then the run is rejected for ${c.rule}`, () => {
      const verdict = judgeRateLimitRun(c.observations(), c.options ?? { expectedLimit: LIMIT });
      expect(verdict.violations.map((v) => v.rule)).toContain(c.rule);
      for (const v of verdict.violations) expect(v.message.length).toBeGreaterThan(0);
    });
  }

  test("when every rule is listed, then each has a case above that breaks it", () => {
    const covered = new Set(brokenCases.map((c) => c.rule));
    expect(Object.keys(RULES).filter((rule) => !covered.has(rule as RuleId))).toEqual([]);
  });

  test("when the good window behind every case is judged, then it passes, so each case fails for its own reason", () => {
    expect(rulesOf(good(), { expectedLimit: LIMIT })).toEqual([]);
  });
});

describe("window timing", () => {
  test("when a moment is inside a minute, then its window ends at the next minute", () => {
    expect(windowEndAt(WINDOW_START)).toBe(WINDOW_START / 1000 + 60);
    expect(windowEndAt(WINDOW_START + 59_999)).toBe(WINDOW_START / 1000 + 60);
    expect(windowEndAt(WINDOW_START + 60_000)).toBe(WINDOW_START / 1000 + 120);
  });

  test("when a moment is inside a minute, then the next window starts after the rest of that minute", () => {
    expect(msUntilNextWindow(WINDOW_START + 45_000)).toBe(15_000);
    expect(msUntilNextWindow(WINDOW_START)).toBe(60_000);
  });
});

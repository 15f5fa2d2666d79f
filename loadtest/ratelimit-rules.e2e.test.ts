/**
 * The rule module judging real responses from the real gateway, so that a
 * wrong rule (one the system rightly breaks) fails here, not in a user's k6 run.
 * The same requests ratelimit.js makes: sequential, then concurrent, per key.
 * With Redis the concurrent requests are where the gateway decides from leases
 * of the quota and reports less than truly remains, above the last tenth of
 * the limit: the judge must accept that, yet still bite on real data.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { startSystem, type TestSystem } from "../tests/harness/system";
import { seedTenant } from "../tests/harness/tenant";
import { getHeader, judgeRateLimitRun, msUntilNextWindow, type JudgeOptions, type Observation } from "./lib/ratelimit-rules.js";

const PATH = "/v1/new-page?per_page=1";
const TIMEOUT = 120_000;

/**
 * Its own system, not the shared one: these bursts are heavier than other
 * tests' traffic, and whatever they do to the upstream must not leak into them.
 */
let own: Promise<TestSystem> | undefined;
const system = (): Promise<TestSystem> => (own ??= startSystem());
afterAll(async () => {
  if (own) await (await own).stop();
});

/**
 * Only the rate limit is judged here; an upstream error is counted like any
 * other authenticated request and left to the services' tests.
 */
function rules(limit: number): JudgeOptions {
  return { expectedLimit: limit, admittedStatuses: "any" };
}

async function observe(url: string, key: string, order: number): Promise<Observation> {
  const sentAt = Date.now();
  try {
    const response = await fetch(url + PATH, { headers: { authorization: `Bearer ${key}` } });
    const body = await response.text();
    return { status: response.status, headers: Object.fromEntries(response.headers), body, sentAt, receivedAt: Date.now(), order };
  } catch {
    return { status: 0, headers: {}, body: null, sentAt, receivedAt: Date.now(), order };
  }
}

async function sequential(urls: string[], key: string, count: number, firstOrder = 0): Promise<Observation[]> {
  const observations: Observation[] = [];
  for (let i = 0; i < count; i += 1) observations.push(await observe(urls[i % urls.length]!, key, firstOrder + i));
  return observations;
}

function concurrent(urls: string[], key: string, count: number, order: number): Promise<Observation[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => observe(urls[i % urls.length]!, key, order)));
}

/** Starts the run early in a clock minute, so one window holds all of it. */
async function freshWindow(): Promise<void> {
  const left = msUntilNextWindow(Date.now());
  if (left < 15_000) await Bun.sleep(left + 500);
}

async function limitedKey(target: TestSystem, limit: number): Promise<string> {
  const tenant = await seedTenant(target);
  return tenant.key({ scopes: ["docs:read"], rate_limit_per_minute: limit });
}

const admittedAndRejected = (verdict: ReturnType<typeof judgeRateLimitRun>) => verdict.windows.map((w) => [w.admitted, w.rejected]);

const remainingOf = (observation: Observation) => Number(getHeader(observation.headers, "X-RateLimit-Remaining"));

function withRemaining(observation: Observation, remaining: number): Observation {
  return { ...observation, headers: { ...observation.headers, "x-ratelimit-remaining": String(remaining) } };
}

const rulesBroken = (observations: Observation[], options: JudgeOptions) => judgeRateLimitRun(observations, options).violations.map((v) => v.rule);

describe("the rate-limit rules against the running gateway", () => {
  test(
    "when a key limited to 5 is used past its limit one request at a time, then every rule holds, the window is exact and Remaining counts down one a request",
    async () => {
      const { baseUrl } = await system();
      const key = await limitedKey(await system(), 5);
      await freshWindow();
      const observations = await sequential([baseUrl], key, 8);
      const verdict = judgeRateLimitRun(observations, rules(5));
      expect(verdict.violations).toEqual([]);
      expect(admittedAndRejected(verdict)).toEqual([[5, 3]]);
      // Leases need several requests of a key in one turn; ratelimit.js's "infer" relies on a lone first request reporting limit − 1.
      expect(observations.map(remainingOf)).toEqual([4, 3, 2, 1, 0, 0, 0, 0]);
    },
    TIMEOUT,
  );

  test(
    "when a key limited to 50 gets a concurrent burst between sequential requests, then exactly 50 of 73 are admitted",
    async () => {
      const { baseUrl } = await system();
      const key = await limitedKey(await system(), 50);
      await freshWindow();
      const observations = [
        ...(await sequential([baseUrl], key, 3)),
        ...(await concurrent([baseUrl], key, 67, 3)),
        ...(await sequential([baseUrl], key, 3, 4)),
      ];
      const verdict = judgeRateLimitRun(observations, rules(50));
      expect(verdict.violations).toEqual([]);
      expect(admittedAndRejected(verdict)).toEqual([[50, 23]]);
    },
    TIMEOUT,
  );

  test(
    "when a key limited to 50 that has not been used yet gets 80 requests at once, then exactly 50 are admitted and the last tenth of the limit is reported exactly",
    async () => {
      const { baseUrl } = await system();
      const key = await limitedKey(await system(), 50);
      await freshWindow();
      const verdict = judgeRateLimitRun(await concurrent([baseUrl], key, 80, 0), rules(50));
      expect(verdict.violations).toEqual([]);
      expect(admittedAndRejected(verdict)).toEqual([[50, 30]]);
    },
    TIMEOUT,
  );

  test(
    "when two keys of one workspace are used at once, then each key's window is its own",
    async () => {
      const { baseUrl } = await system();
      const tenant = await seedTenant(await system());
      const first = await tenant.key({ scopes: ["docs:read"], rate_limit_per_minute: 4 });
      const second = await tenant.key({ scopes: ["docs:read"], rate_limit_per_minute: 7 });
      await freshWindow();
      const [a, b] = await Promise.all([concurrent([baseUrl], first, 6, 0), concurrent([baseUrl], second, 9, 0)]);
      const verdictA = judgeRateLimitRun(a, rules(4));
      const verdictB = judgeRateLimitRun(b, rules(7));
      expect([verdictA.violations, verdictB.violations]).toEqual([[], []]);
      expect([admittedAndRejected(verdictA), admittedAndRejected(verdictB)]).toEqual([[[4, 2]], [[7, 2]]]);
    },
    TIMEOUT,
  );

  test(
    "when a real window is judged with one answer altered, then the judge rejects it (it is not vacuous on real data)",
    async () => {
      const { baseUrl } = await system();
      const key = await limitedKey(await system(), 3);
      await freshWindow();
      const real = await sequential([baseUrl], key, 5);
      expect(judgeRateLimitRun(real, rules(3)).violations).toEqual([]);

      const firstRefused = real.findIndex((o) => o.status === 429);
      const withoutRetryAfter = real.map((o, i) => {
        if (i !== firstRefused) return o;
        const headers = Object.fromEntries(Object.entries(o.headers).filter(([name]) => name.toLowerCase() !== "retry-after"));
        return { ...o, headers };
      });
      const oneTooMany = real.map((o, i) => (i === firstRefused ? { ...o, status: 200 } : o));
      expect(rulesBroken(withoutRetryAfter, rules(3))).toContain("missing_retry_after");
      expect(rulesBroken(oneTooMany, rules(3))).toContain("over_admission");
      expect(rulesBroken(real, rules(4))).toContain("limit_mismatch");
    },
    TIMEOUT,
  );

  test(
    "when a real burst window is judged with a value raised above the truth or a last-tenth value repeated, then the judge rejects it",
    async () => {
      const { baseUrl } = await system();
      const key = await limitedKey(await system(), 50);
      await freshWindow();
      const real = await concurrent([baseUrl], key, 60, 0);
      expect(judgeRateLimitRun(real, rules(50)).violations).toEqual([]);

      const admitted = real.map((o, i) => ({ o, i })).filter(({ o }) => o.status !== 429);
      const byRemaining = admitted.slice().sort((a, b) => remainingOf(b.o) - remainingOf(a.o));
      const secondHighest = byRemaining[1]!.i;
      const last = byRemaining[byRemaining.length - 1]!.i;
      const twoAtTheTop = real.map((o, i) => (i === secondHighest ? withRemaining(o, 49) : o));
      const oneTwice = real.map((o, i) => (i === last ? withRemaining(o, 1) : o));
      expect(rulesBroken(twoAtTheTop, rules(50))).toContain("remaining_above_truth");
      expect(rulesBroken(oneTwice, rules(50))).toContain("remaining_not_exact");
      expect(rulesBroken(oneTwice, { ...rules(50), fresh: false })).toContain("remaining_duplicate");
    },
    TIMEOUT,
  );

  const sharedStores = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
  test.skipIf(!sharedStores)(
    "when three replicas share Redis and a burst is spread over them, then the key's limit is exact across replicas",
    async () => {
      const cluster = await startSystem({ replicas: 3 });
      try {
        const key = await limitedKey(cluster, 50);
        await freshWindow();
        const observations = [
          ...(await sequential(cluster.baseUrls, key, 3)),
          ...(await concurrent(cluster.baseUrls, key, 67, 3)),
          ...(await sequential(cluster.baseUrls, key, 3, 4)),
        ];
        const verdict = judgeRateLimitRun(observations, rules(50));
        expect(verdict.violations).toEqual([]);
        expect(admittedAndRejected(verdict)).toEqual([[50, 23]]);
      } finally {
        await cluster.stop();
      }
    },
    TIMEOUT,
  );
});

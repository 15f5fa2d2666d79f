import { describe, expect, test } from "bun:test";
import { baseUrls, booleanFrom, credentials, durationFrom, durationSeconds, integerFrom, numberFrom } from "./config.js";
import { DEFAULT_MIX, keyLimitFor, parseMix, pickOperation } from "./mix.js";
import { soakPhaseAt, spikePhaseAt, spikePlannedIterations, spikeStages, spikeTotalSeconds } from "./profiles.js";

describe("base URLs", () => {
  test("when nothing is set, then requests go to the gateway npm start runs", () => {
    expect(baseUrls({})).toEqual(["http://localhost:8080"]);
  });

  test("when BASE_URLS lists replicas, then every one is used, without trailing slashes", () => {
    expect(baseUrls({ BASE_URLS: "http://localhost:8080/, http://localhost:8081 ,http://localhost:8082", BASE_URL: "http://ignored" })).toEqual([
      "http://localhost:8080",
      "http://localhost:8081",
      "http://localhost:8082",
    ]);
  });

  test("when a URL is not http(s), then the error names the variable", () => {
    expect(() => baseUrls({ BASE_URL: "localhost:8080" })).toThrow("BASE_URL");
  });
});

describe("credentials", () => {
  test("when API_KEY is set, then its keys are used and nothing is provisioned", () => {
    expect(credentials({ API_KEY: "wsk_a, wsk_b", ADMIN_TOKEN: "t" })).toEqual({ mode: "keys", keys: ["wsk_a", "wsk_b"] });
  });

  test("when only ADMIN_TOKEN is set, then keys are provisioned through the default management port", () => {
    expect(credentials({ ADMIN_TOKEN: "secret" })).toEqual({ mode: "admin", adminUrl: "http://localhost:8081", adminToken: "secret" });
  });

  test("when neither is set, then the error says how to get a key", () => {
    expect(() => credentials({})).toThrow("API_KEY");
  });
});

describe("numbers and durations", () => {
  test("when a number is unset, then the default applies; when out of bounds, then the variable is named", () => {
    expect(integerFrom({}, "RATE", 50)).toBe(50);
    expect(integerFrom({ RATE: " 70 " }, "RATE", 50)).toBe(70);
    expect(() => integerFrom({ RATE: "7.5" }, "RATE", 50)).toThrow("RATE");
    expect(() => integerFrom({ RL_KEYS: "0" }, "RL_KEYS", 3, { min: 1 })).toThrow("RL_KEYS: 0 is outside 1");
    expect(numberFrom({ ERROR_RATE: "0.05" }, "ERROR_RATE", 0.01, { max: 1 })).toBe(0.05);
    expect(booleanFrom({ X: "yes" }, "X", false)).toBe(true);
  });

  test("when a duration is written the k6 way, then its seconds are known", () => {
    expect(durationSeconds("90s")).toBe(90);
    expect(durationSeconds("1h30m")).toBe(5400);
    expect(durationSeconds("500ms")).toBe(0.5);
    expect(() => durationSeconds("10 minutes")).toThrow();
  });

  test("when a duration exceeds its bound, then the run is refused before it starts", () => {
    expect(durationFrom({}, "DURATION", "30m")).toBe("30m");
    expect(() => durationFrom({ DURATION: "48h" }, "DURATION", "30m")).toThrow("DURATION: 48h is longer than 86400s");
  });
});

describe("operation mix", () => {
  test("when MIX is unset, then every operation of the default mix can be picked", () => {
    const mix = parseMix(undefined);
    const picked = new Set<string>();
    for (let i = 0; i < 1000; i += 1) picked.add(pickOperation(mix, i / 1000));
    expect([...picked].sort()).toEqual(Object.keys(DEFAULT_MIX).sort());
  });

  test("when MIX names operations, then only those are picked, in proportion", () => {
    const mix = parseMix("pages.get=3,events.create=1");
    const counts: Record<string, number> = {};
    for (let i = 0; i < 400; i += 1) {
      const op = pickOperation(mix, i / 400);
      counts[op] = (counts[op] ?? 0) + 1;
    }
    expect(counts).toEqual({ "pages.get": 300, "events.create": 100 });
  });

  test("when MIX names an unknown operation, then the error lists the known ones", () => {
    expect(() => parseMix("pages.explode=1")).toThrow("pages.get");
  });

  test("when a key is provisioned for a rate, then its limit leaves headroom above that rate", () => {
    expect(keyLimitFor(50)).toBeGreaterThan(50 * 60);
  });
});

describe("load shapes", () => {
  const plan = { baseRate: 20, spikeRate: 300, warm: "30s", ramp: "10s", hold: "1m", recover: "1m" };

  test("when a spike is planned, then it climbs, holds and falls back to the base rate", () => {
    expect(spikeStages(plan).map((s) => s.target)).toEqual([20, 300, 300, 20, 20]);
    expect(spikeTotalSeconds(plan)).toBe(170);
  });

  test("when a spike is planned, then its planned iterations count each ramp at the mean of its ends", () => {
    // 30 s at 20, two 10 s ramps between 20 and 300, 60 s at 300, 60 s at 20.
    expect(spikePlannedIterations(plan)).toBe(30 * 20 + 2 * 10 * 160 + 60 * 300 + 60 * 20);
  });

  test("when requests are tagged during a spike, then the phase follows the plan", () => {
    expect([0, 29, 30, 109, 110, 169].map((t) => spikePhaseAt(plan, t))).toEqual(["baseline", "baseline", "spike", "spike", "recovery", "recovery"]);
  });

  test("when requests are tagged during a soak, then the first and last tenth are phases of their own", () => {
    expect([0, 179, 180, 1619, 1620, 1799].map((t) => soakPhaseAt(1800, t))).toEqual(["early", "early", "middle", "middle", "final", "final"]);
  });
});

import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CI_RUNS, runEnv } from "./plan";

const LOADTEST = join(import.meta.dir, "..");
/**
 * Per run: k6's start (k6 v0.48 turns the ES modules into CommonJS with Babel,
 * about 5 s of CPU), setup()'s provisioning and seeding, teardown(). Measured
 * at 6 to 11 s a run on a quiet machine; a busy one takes longer.
 */
const RUN_OVERHEAD_S = 12;
/** Starting the system (measured at 2 s; its readiness limit is far higher). */
const SYSTEM_START_S = 15;

/** The environment variables a script (and the modules it imports) reads. */
function variablesRead(script: string): Set<string> {
  const files = [script, ...readdirSync(join(LOADTEST, "lib")).filter((f) => f.endsWith(".js")).map((f) => join("lib", f))];
  const names = new Set<string>();
  for (const file of files) {
    const text = readFileSync(join(LOADTEST, file), "utf8");
    for (const match of text.matchAll(/(?:integerFrom|numberFrom|durationFrom|booleanFrom|operationTargetsFrom)\(__ENV, "([A-Z0-9_]+)"/g)) names.add(match[1]!);
    for (const match of text.matchAll(/__ENV\.([A-Z0-9_]+)/g)) names.add(match[1]!);
  }
  return names;
}

describe("the CI stage's k6 runs", () => {
  test("when the scripts are listed, then each one has a run in CI", () => {
    const scripts = readdirSync(LOADTEST).filter((f) => f.endsWith(".js"));
    expect(scripts.filter((script) => !CI_RUNS.some((run) => run.script === script))).toEqual([]);
  });

  test("when the rate-limit script runs, then once against one gateway and once spread over three replicas", () => {
    expect(CI_RUNS.filter((run) => run.script === "ratelimit.js").map((run) => run.replicas).sort()).toEqual([1, 3]);
  });

  test("when a run shortens its script, then it does so through variables the script reads", () => {
    for (const run of CI_RUNS) {
      const read = variablesRead(run.script);
      expect({ run: run.name, unknown: Object.keys(run.settings).filter((name) => !read.has(name)) }).toEqual({ run: run.name, unknown: [] });
    }
  });

  test("when every run takes its longest, then the stage still ends within three minutes", () => {
    const seconds = SYSTEM_START_S + CI_RUNS.reduce((sum, run) => sum + run.scenarioSeconds + RUN_OVERHEAD_S, 0);
    expect(seconds).toBeLessThan(180);
  });

  test("when a run is aimed at replicas, then it gets them all in BASE_URLS; otherwise the first in BASE_URL", () => {
    const target = { gatewayUrls: ["http://a", "http://b", "http://c"], adminUrl: "http://admin", adminToken: "t" };
    const spread = runEnv(CI_RUNS.find((run) => run.replicas === 3)!, target, "/tmp/r.json");
    expect(spread).toMatchObject({ BASE_URLS: "http://a,http://b,http://c", ADMIN_URL: "http://admin", ADMIN_TOKEN: "t", REPORT_JSON: "/tmp/r.json" });
    expect(spread.BASE_URL).toBeUndefined();
    expect(runEnv(CI_RUNS.find((run) => run.script === "mixed.js")!, target, "/tmp/r.json")).toMatchObject({ BASE_URL: "http://a" });
  });
});

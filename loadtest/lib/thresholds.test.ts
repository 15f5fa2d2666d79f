import { describe, expect, test } from "bun:test";
import { parseMix } from "./mix.js";
import { droppedIterationsThreshold, operationTargetsFrom, operationThresholds, workloadThresholds } from "./thresholds.js";

describe("per-operation thresholds", () => {
  test("when the mix weighs an operation, then its latency, failures and checks each get a threshold of the scenario", () => {
    const thresholds = operationThresholds("mixed", parseMix("pages.get=3,events.create=1"), { p95: 300, errorRate: 0.01 });
    expect(thresholds).toEqual({
      "http_req_duration{scenario:mixed,op:pages.get}": ["p(95)<300"],
      "http_req_failed{scenario:mixed,op:pages.get}": ["rate<0.01"],
      "checks{scenario:mixed,op:pages.get}": ["rate>0.99"],
      "http_req_duration{scenario:mixed,op:events.create}": ["p(95)<300"],
      "http_req_failed{scenario:mixed,op:events.create}": ["rate<0.01"],
      "checks{scenario:mixed,op:events.create}": ["rate>0.99"],
    });
  });

  test("when an operation weighs 0, then it has no threshold (it sends nothing to judge)", () => {
    const thresholds = operationThresholds("soak", parseMix("pages.get=1,pages.delete=0"), { p95: 300, errorRate: 0.01 });
    expect(Object.keys(thresholds).filter((name) => name.includes("pages.delete"))).toEqual([]);
  });

  test("when OP_P95_MS gives an operation its own target, then only that operation's latency threshold changes", () => {
    const own = operationTargetsFrom({ OP_P95_MS: "events.create=500, pages.create=450" }, "OP_P95_MS");
    expect(own).toEqual({ "events.create": 500, "pages.create": 450 });
    const thresholds = operationThresholds("spike", parseMix(undefined), { p95: 1500, errorRate: 0.05, p95ByOperation: own });
    expect(thresholds["http_req_duration{scenario:spike,op:events.create}"]).toEqual(["p(95)<500"]);
    expect(thresholds["http_req_duration{scenario:spike,op:pages.get}"]).toEqual(["p(95)<1500"]);
  });

  test("when OP_P95_MS names an unknown operation or no number, then the error names the variable", () => {
    expect(() => operationTargetsFrom({ OP_P95_MS: "pages.fly=5" }, "OP_P95_MS")).toThrow("OP_P95_MS: unknown operation");
    expect(() => operationTargetsFrom({ OP_P95_MS: "pages.get=fast" }, "OP_P95_MS")).toThrow("OP_P95_MS");
    expect(() => operationTargetsFrom({ OP_P95_MS: "pages.get=0" }, "OP_P95_MS")).toThrow("OP_P95_MS");
    expect(operationTargetsFrom({}, "OP_P95_MS")).toEqual({});
  });
});

describe("whole-scenario thresholds", () => {
  test("when targets are set, then latency, failures and checks of the scenario are judged, and at least one operation must complete", () => {
    expect(workloadThresholds("mixed", { p95: 300, p99: 800, errorRate: 0.01 })).toEqual({
      "http_req_duration{scenario:mixed}": ["p(95)<300", "p(99)<800"],
      "http_req_failed{scenario:mixed}": ["rate<0.01"],
      "checks{scenario:mixed}": ["rate>0.99"],
      operations_completed: ["count>0"],
    });
  });

  test("when a scenario promises a rate, then at most the given share of its planned iterations may be dropped, and at least one", () => {
    expect(droppedIterationsThreshold(6000, 0.01)).toEqual(["count<=60"]);
    expect(droppedIterationsThreshold(23_000, 0.01)).toEqual(["count<=230"]);
    expect(droppedIterationsThreshold(30, 0.01)).toEqual(["count<=1"]);
    expect(droppedIterationsThreshold(6000, 0)).toEqual(["count<=1"]);
  });
});

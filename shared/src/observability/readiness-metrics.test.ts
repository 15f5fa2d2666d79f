import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { parsePrometheusText, sampleValue } from "../../../tests/e2e/operations/prometheus-format";
import { errorHandler } from "../http/error-handler";
import { healthRoutes } from "../http/health";
import { createLogger } from "./logger";
import { MetricsRegistry } from "./metrics";
import { readinessMetrics } from "./readiness-metrics";

describe("readinessMetrics", () => {
  test("when /readyz goes ready, not ready, ready and then drains, then the status follows and each change is counted", async () => {
    const registry = new MetricsRegistry();
    let databaseUp = true;
    let draining = false;
    const app = new Elysia()
      .use(errorHandler({ validationCode: "validation_error", logger: createLogger("test", "silent") }))
      .use(
        healthRoutes({
          checks: { database: async () => (databaseUp ? 1 : Promise.reject(new Error("down"))) },
          isDraining: () => draining,
          onReadiness: readinessMetrics(registry),
        }),
      );
    const probe = async () => (await app.handle(new Request("http://local/readyz"))).status;
    const scrape = () => parsePrometheusText(registry.expose());
    expect(sampleValue(scrape(), "readiness_status")).toBe(-1);
    expect(await probe()).toBe(200);
    expect(await probe()).toBe(200);
    expect(sampleValue(scrape(), "readiness_changes_total")).toBe(0);
    databaseUp = false;
    expect(await probe()).toBe(503);
    expect(sampleValue(scrape(), "readiness_status")).toBe(0);
    databaseUp = true;
    expect(await probe()).toBe(200);
    expect(sampleValue(scrape(), "readiness_status")).toBe(1);
    draining = true;
    expect(await probe()).toBe(503);
    const families = scrape();
    expect(sampleValue(families, "readiness_status")).toBe(0);
    expect(sampleValue(families, "readiness_changes_total")).toBe(3);
    expect(families.get("readiness_changes_total")!.type).toBe("counter");
  });
});

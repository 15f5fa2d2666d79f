import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiClient, type Call } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";
import { hasRedisServer, sleep, throwawayRedis, withRedis } from "../ratelimit/helpers";
import { parsePrometheusText, sampleValue } from "./prometheus-format";

/** The gauges the dashboard's Redis panels and the fallback alert read, through a real Redis outage. */
const HOOK_TIMEOUT_MS = 180_000;

describe.skipIf(!(withRedis && hasRedisServer))("when the gateway's Redis goes away and comes back", () => {
  let redis: Awaited<ReturnType<typeof throwawayRedis>>;
  let system: TestSystem | undefined;
  let call: Call;

  const gauges = async () => {
    const families = parsePrometheusText(await (await fetch(`${system!.adminUrl}/metrics`)).text());
    const modes = families.get("ratelimit_limiter_mode")!.samples.filter((sample) => sample.value === 1).map((sample) => sample.labels.mode);
    return { modes, open: sampleValue(families, "redis_connections_open") };
  };
  /** Sends requests until the gauges read as expected, for at most `ms`. */
  const until = async (expected: { modes: string[]; open: number }, ms: number) => {
    const deadline = Date.now() + ms;
    let seen = await gauges();
    while (Date.now() < deadline && JSON.stringify(seen) !== JSON.stringify(expected)) {
      expect((await call("GET", "/v1/new-page")).status).toBe(200);
      await sleep(100);
      seen = await gauges();
    }
    return seen;
  };

  beforeAll(async () => {
    redis = await throwawayRedis();
    await redis.start();
    system = await startSystem({ env: { REDIS_URL: redis.url }, gatewayEnv: { REDIS_TIMEOUT_MS: "250" } });
    const tenant = await seedTenant(system);
    call = apiClient(system.baseUrl, await tenant.key({ rate_limit_per_minute: 1_000_000 }));
  }, HOOK_TIMEOUT_MS);

  afterAll(async () => {
    await system?.stop();
    await redis?.dispose();
  }, HOOK_TIMEOUT_MS);

  // Two connections: the request path's own, and the one for everything else (epoch publishing, the readiness ping).
  test("then the limiter's mode goes from redis to fallback and back, and the open Redis connections follow", async () => {
    expect(await until({ modes: ["redis"], open: 2 }, 10_000)).toEqual({ modes: ["redis"], open: 2 });
    await redis.stop();
    expect(await until({ modes: ["fallback"], open: 0 }, 15_000)).toEqual({ modes: ["fallback"], open: 0 });
    await redis.start();
    expect(await until({ modes: ["redis"], open: 2 }, 20_000)).toEqual({ modes: ["redis"], open: 2 });
  }, 90_000);
});

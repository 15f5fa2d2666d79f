import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiClient, type Call } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";

/**
 * A service told to stop (SIGTERM, as a deploy does) keeps answering for a
 * while, each answer closing its connection, so that none of the gateway's
 * keep-alive connections is closed under a request being written: such a
 * write, never read by the service, was a 502 (outcome unknown).
 */
let system: TestSystem;
let call: Call;

beforeAll(async () => {
  // The drain as deployed (DRAIN_CONNECTIONS_MS unset), where test systems otherwise stop at once.
  system = await startSystem({ withoutRedis: true, env: { DRAIN_CONNECTIONS_MS: undefined } });
  call = apiClient(system.baseUrl, await (await seedTenant(system)).key({ rate_limit_per_minute: 1_000_000 }));
}, 120_000);

afterAll(async () => {
  await system?.stop();
});

describe("a service told to stop", () => {
  test("when the pages service is told to stop, then for its first seconds it still serves the gateway's writes and reads (200), each on a connection that then closes, and it restarts", async () => {
    const page = (await call("POST", "/v1/new-page", { title: "drained" })).body.id;
    // Connections in the gateway's pool, idle, as between a client's requests.
    await Promise.all(Array.from({ length: 8 }, () => call("GET", `/v1/new-page/${page}`)));
    const pages = system.running.children.find((child) => child.name === "pages")!;
    pages.process.kill("SIGTERM");
    const statuses: number[] = [];
    const until = performance.now() + 3_000;
    for (let n = 0; performance.now() < until; n++) {
      const answers = await Promise.all([call("PUT", `/v1/new-page/${page}`, { content: `c-${n}` }), call("GET", `/v1/new-page/${page}`)]);
      statuses.push(...answers.map((answer) => answer.status));
    }
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    await system.running.restart("pages");
    expect((await call("GET", `/v1/new-page/${page}`)).status).toBe(200);
  }, 60_000);
});

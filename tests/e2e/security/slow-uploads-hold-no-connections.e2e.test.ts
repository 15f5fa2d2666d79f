import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { apiClient } from "../../harness/http";
import { portOf, rawConnection, type RawConnection } from "../../harness/raw-http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";

const MiB = 1024 * 1024;

/** The gateway's own limits, small enough to reach: a key holds at most 10 MiB of bodies in transit, and a body waits 1.5 s at most. */
const UPSTREAM_TIMEOUT_MS = 1_500;
let system: TestSystem;
beforeAll(async () => {
  system = await startSystem({
    gatewayEnv: { MAX_INFLIGHT_BODY_BYTES_PER_KEY: String(10 * MiB), MAX_INFLIGHT_BODY_BYTES: String(64 * MiB), UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) },
  });
}, 120_000);

const open: RawConnection[] = [];
afterAll(async () => {
  while (open.length) open.pop()!.close();
  await system?.stop();
});

/** A POST that declares `declared` bytes of body and sends none of them. */
async function stalledPost(key: string, declared: number): Promise<RawConnection> {
  const connection = rawConnection(portOf(system.baseUrl));
  open.push(connection);
  await connection.write(`POST /v1/new-page HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
  return connection;
}

describe("uploads that do not arrive", () => {
  test("when one key holds 300 small bodies that never arrive, then another workspace's requests are answered at once", async () => {
    const hog = await (await seedTenant(system)).key();
    const other = apiClient(system.baseUrl, await (await seedTenant(system)).key());
    // More than the gateway's connections to a service (256): had each taken one, the others would wait for them.
    for (let i = 0; i < 300; i++) await stalledPost(hog, 100);
    await Bun.sleep(300);
    const started = performance.now();
    const created = await other("POST", "/v1/new-page", { title: "still served" });
    const listed = await other("GET", "/v1/new-page");
    const took = performance.now() - started;
    expect(created.status).toBe(201);
    expect(listed.status).toBe(200);
    expect(took).toBeLessThan(2_000);
  });

  test("when one workspace's keys stream bodies that do not arrive, then they hold at most half the gateway's budget, and another workspace still writes", async () => {
    const hog = await seedTenant(system);
    const keys = await Promise.all(Array.from({ length: 7 }, () => hog.key()));
    // Seven keys of 10 MiB each would cover the whole 64 MiB budget; the workspace may hold 32 MiB of it.
    const uploads: RawConnection[] = [];
    for (const key of keys) for (let i = 0; i < 10; i++) uploads.push(await stalledPost(key, 100 * 1024));
    await Bun.sleep(1_000);
    const refused = (await Promise.all(uploads.map((upload) => upload.responses(1, 100)))).flat();
    expect(refused).toHaveLength(70 - 32);
    for (const answer of refused) {
      expectError({ status: answer.status, body: answer.body }, 429, "rate_limit_exceeded");
      expect(answer.body.error.message).toContain("workspace");
    }
    const other = apiClient(system.baseUrl, await (await seedTenant(system)).key());
    expect((await other("POST", "/v1/new-page", { title: "still written" })).status).toBe(201);
    for (const upload of uploads) upload.close();
  });

  test("when a small body does not arrive within the wait for a service, then the answer is 503 with Retry-After, and nothing was created", async () => {
    const tenant = await seedTenant(system);
    const key = await tenant.key();
    const started = performance.now();
    const [answer] = await (await stalledPost(key, 100)).responses(1, 10_000);
    expect(performance.now() - started).toBeGreaterThanOrEqual(UPSTREAM_TIMEOUT_MS - 100);
    expectError({ status: answer!.status, body: answer!.body }, 503, "service_unavailable");
    expect(answer!.headers["retry-after"]).toBe("1");
    expect((await apiClient(system.baseUrl, key)("GET", "/v1/new-page")).body.total).toBe(0);
  });

  test("when one key streams large bodies that do not arrive, then it holds at most its share over 1 MiB of them, and the rest are 429", async () => {
    const key = await (await seedTenant(system)).key();
    // Each declares 100 KiB, so it streams and holds 1 MiB of the key's 10 MiB share: ten of them fill it, two more are refused.
    const uploads: RawConnection[] = [];
    for (let i = 0; i < 12; i++) uploads.push(await stalledPost(key, 100 * 1024));
    await Bun.sleep(1_000);
    // Which two are refused depends on the order the gateway takes them in (on Deno, not the order sent).
    const answers = (await Promise.all(uploads.map((upload) => upload.responses(1, 100)))).flat();
    expect(answers.map((answer) => answer.status)).toEqual([429, 429]);
    for (const answer of answers) {
      expectError({ status: answer.status, body: answer.body }, 429, "rate_limit_exceeded");
      expect(answer.body.error.details.reason).toBe("request_bodies_in_transit");
    }
  });
});

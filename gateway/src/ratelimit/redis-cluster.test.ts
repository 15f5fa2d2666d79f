import { afterAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cluster, Redis } from "ioredis";
import { freePortBlock } from "../../../tests/harness/ports";
import { createRedisAuthFailureLimiter } from "./auth-failure-limiter";
import { createRedisLimiter } from "./redis-limiter";
import { redisKeys } from "./redis-keys";

const hasRedisServer = spawnSync("redis-server", ["--version"]).status === 0;
let server: ChildProcess | undefined;
let cluster: Cluster | undefined;
let directory: string | undefined;

afterAll(async () => {
  cluster?.disconnect();
  server?.kill("SIGKILL");
  if (directory) rmSync(directory, { recursive: true, force: true });
});

/** A one-node Redis Cluster owning every slot: enough for Redis to refuse scripts whose keys span slots (CROSSSLOT). */
async function oneNodeCluster(): Promise<number> {
  const port = await freePortBlock(2); // the second port is the cluster bus
  directory = mkdtempSync(join(tmpdir(), "ws-redis-cluster-"));
  server = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes", "--cluster-port", String(port + 1), "--cluster-announce-ip", "127.0.0.1", "--cluster-config-file", join(directory, "nodes.conf"), "--save", "", "--appendonly", "no", "--dir", directory], { stdio: "ignore" });
  let admin: Redis;
  for (let attempt = 0; ; attempt++) {
    admin = new Redis({ port, host: "127.0.0.1", lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    admin.on("error", () => {});
    try {
      await admin.connect();
      break;
    } catch {
      admin.disconnect();
      if (attempt > 100) throw new Error("cluster node did not start");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  await admin.call("CLUSTER", "ADDSLOTSRANGE", "0", "16383");
  for (let attempt = 0; !String(await admin.call("CLUSTER", "INFO")).includes("cluster_state:ok"); attempt++) {
    if (attempt > 100) throw new Error("cluster did not become ok");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  admin.disconnect();
  return port;
}

describe.skipIf(!hasRedisServer)("the limiter scripts on Redis Cluster", () => {
  test("when the request and auth-failure scripts run through an ioredis Cluster, then Redis accepts their keys as one slot and counts as on a single Redis", async () => {
    const port = await oneNodeCluster();
    cluster = new Cluster([`redis://127.0.0.1:${port}`], { redisOptions: { maxRetriesPerRequest: 0, commandTimeout: 1000 } });
    await cluster.set(redisKeys.authEpoch("ws_c"), "9");
    const limiter = createRedisLimiter(cluster, { suspendAfterMultiple: 2, suspendSeconds: 60 });
    const first = await limiter.hit({ id: "key_c", workspaceId: "ws_c", limit: 5 });
    const second = await limiter.hit({ id: "key_c", workspaceId: "ws_c", limit: 5 });
    expect(first.remaining).toBe(4);
    if (second.resetAt === first.resetAt) expect(second.remaining).toBe(3);
    expect(first.authEpoch).toBe("9");

    const failures = createRedisAuthFailureLimiter(cluster, 1);
    await failures.recordFailure("198.51.100.7");
    expect((await failures.recordFailure("198.51.100.7").catch((error) => error))?.code).toBe("rate_limit_exceeded");
    expect((await failures.assertNotBlocked("198.51.100.7").catch((error) => error))?.code).toBe("rate_limit_exceeded");

    // The guard this test relies on: a script whose keys span two slots is refused.
    const crossSlot = await cluster.eval("return 1", 2, "rl:{ws:a}:k", "rl:{ws:b}:k").catch((error: Error) => error.message);
    expect(String(crossSlot)).toContain("CROSSSLOT");
  }, 30_000);
});

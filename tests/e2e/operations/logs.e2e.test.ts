import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { launchSystem, type RunningSystem } from "../../../scripts/system";
import { testStorage, type TestStorage } from "../../harness/database";
import { freePortBlock } from "../../harness/ports";
import { TEST_RUNTIME, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";

/** Starting the processes on embedded Postgres can take a minute on a busy machine. */
const HOOK_TIMEOUT_MS = 180_000;

const ADMIN_TOKEN = `admin-${randomBytes(16).toString("hex")}`;
const SIGNING_KEY = randomBytes(32).toString("base64url");
const lines: { name: string; line: string }[] = [];
let storage: TestStorage;
let running: RunningSystem;
const secrets: string[] = [ADMIN_TOKEN, SIGNING_KEY];
let requestsSent = 0;

describe("when the processes log at debug level through real traffic and a shutdown", () => {
  beforeAll(async () => {
    storage = await testStorage();
    const base = await freePortBlock(4);
    running = await launchSystem({
      runtime: TEST_RUNTIME,
      port: base,
      adminPort: base + 1,
      pagesPort: base + 2,
      calendarPort: base + 3,
      env: { ...storage.env, LOG_LEVEL: "debug", REDIS_URL: process.env.REDIS_URL, ADMIN_TOKEN, INTERNAL_SIGNING_KEY: SIGNING_KEY },
      output: (name, line) => lines.push({ name, line }),
      readyTimeoutMs: 90_000,
    });
    const tenant = await seedTenant({ adminUrl: running.adminUrls[0]!, adminToken: ADMIN_TOKEN } as TestSystem);
    const key = await tenant.key();
    const otherKey = await tenant.key({ permissions: { docs: "read" } });
    const wrongKey = `wsk_${randomBytes(24).toString("base64url")}`;
    secrets.push(key, otherKey, wrongKey);
    if (storage.databaseUrl) {
      const password = new URL(storage.databaseUrl).password;
      if (password) secrets.push(decodeURIComponent(password));
    }
    const gateway = running.gatewayUrls[0]!;
    const send = async (path: string, headers: Record<string, string>, init: RequestInit = {}) => {
      requestsSent += 1;
      await (await fetch(gateway + path, { ...init, headers })).arrayBuffer();
    };
    await send("/v1/new-page", { authorization: `Bearer ${key}` });
    await send("/v1/new-page", { "x-api-key": key });
    await send("/v1/new-page", { authorization: `Bearer ${otherKey}`, "content-type": "application/json" }, { method: "POST", body: "{}" });
    await send("/v1/new-page", { authorization: `Bearer ${wrongKey}` });
    await send("/api/calendar/events", { "x-api-key": wrongKey });
    await send("/v1/new-page", { authorization: `Bearer ${key}`, "content-type": "application/json" }, { method: "POST", body: "{not json" });
    // Straight to a service with a forged principal, and to the management API with a wrong token.
    await (await fetch(`${running.pagesUrl}/v1/new-page`, { headers: { "x-workspace-principal": `forged.${key}` } })).arrayBuffer();
    await (await fetch(`${running.adminUrls[0]}/admin/v1/workspaces`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } })).arrayBuffer();
    await running.stop();
  }, HOOK_TIMEOUT_MS);
  afterAll(async () => {
    await running?.stop();
    await storage?.dispose();
  }, HOOK_TIMEOUT_MS);

  test("then no key, token, signing key or password appears in any line a process wrote", () => {
    expect(lines.length).toBeGreaterThan(0);
    for (const { name, line } of lines) {
      for (const secret of secrets) {
        if (line.includes(secret)) throw new Error(`${name} logged a secret: ${line}`);
      }
      expect(line.toLowerCase()).not.toContain("bearer ");
    }
  });

  test("then the gateway wrote one JSON line per public request with its id, key id, route, status and latency", () => {
    const requests = lines
      .filter(({ name }) => name === "gateway")
      .map(({ line }) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.message === "request");
    expect(requests.length).toBe(requestsSent);
    for (const entry of requests) {
      expect(typeof entry.request_id).toBe("string");
      expect(typeof entry.route).toBe("string");
      expect(typeof entry.status).toBe("number");
      expect(typeof entry.latency_ms).toBe("number");
      expect(typeof entry.time).toBe("string");
    }
    expect(requests.filter((entry) => entry.status === 200).every((entry) => typeof entry.key_id === "string")).toBe(true);
    expect(requests.some((entry) => entry.status === 401)).toBe(true);
  });

  test("then every process logged its shutdown as JSON", () => {
    for (const name of ["gateway", "pages", "calendar"]) {
      const entries = lines.filter((line) => line.name === name).map(({ line }) => JSON.parse(line) as Record<string, unknown>);
      expect(entries.some((entry) => entry.message === "shutting down")).toBe(true);
      expect(entries.some((entry) => entry.message === "stopped")).toBe(true);
    }
  });
});

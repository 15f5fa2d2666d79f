import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createConnection } from "node:net";
import { signingKeyFrom, signPrincipal } from "@ws/shared";
import { freePortBlock } from "../../harness/ports";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";

/** Starting the processes on embedded Postgres can take a minute on a busy machine. */
const HOOK_TIMEOUT_MS = 180_000;

const GRACE_MS = 5000;
const UPSTREAM_DELAY_MS = 1500;
const IN_FLIGHT = 5;

/** One request on a brand-new TCP connection (never a pooled one): was it served at all? */
function freshRequest(url: string): Promise<{ outcome: "refused" | "closed" | "timeout" } | { outcome: "served"; status: number }> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port) });
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ outcome: "timeout" });
    }, 3000);
    const done = (result: Parameters<typeof resolve>[0]) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    socket.on("connect", () => socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`));
    socket.on("data", (chunk) => {
      received += chunk.toString();
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(received);
      if (status) done({ outcome: "served", status: Number(status[1]) });
    });
    socket.on("error", (error: NodeJS.ErrnoException) => done({ outcome: error.code === "ECONNREFUSED" ? "refused" : "closed" }));
    socket.on("close", () => done({ outcome: "closed" }));
  });
}

let system: TestSystem;
let slowUpstream: ReturnType<typeof Bun.serve>;
let arrived = 0;

// One system for both cases: the gateway is stopped first, then a service.
beforeAll(async () => {
  const port = await freePortBlock(1);
  // Stands in for a slow service: every request is answered, but only after UPSTREAM_DELAY_MS.
  slowUpstream = Bun.serve({
    port,
    hostname: "127.0.0.1",
    fetch: async (request) => {
      if (new URL(request.url).pathname === "/api/calendar/events") arrived += 1;
      await Bun.sleep(UPSTREAM_DELAY_MS);
      return Response.json({ answered_by: "slow upstream" });
    },
  });
  system = await startSystem({
    env: { SHUTDOWN_GRACE_MS: String(GRACE_MS) },
    gatewayEnv: { CALENDAR_URL: `http://127.0.0.1:${port}`, UPSTREAM_TIMEOUT_MS: "5000", SHUTDOWN_GRACE_MS: String(GRACE_MS) },
  });
}, HOOK_TIMEOUT_MS);
afterAll(async () => {
  slowUpstream?.stop(true);
  await system?.stop();
}, HOOK_TIMEOUT_MS);

describe("when the gateway gets SIGTERM in the middle of slow requests", () => {
  test("then in-flight requests finish, new connections are not served, and it exits 0 within the grace", async () => {
    const key = await (await seedTenant(system)).key();
    const gateway = system.running.children.find((child) => child.name === "gateway")!;
    const inFlight = Array.from({ length: IN_FLIGHT }, () =>
      fetch(`${system.baseUrl}/api/calendar/events`, { headers: { authorization: `Bearer ${key}` } }).then(async (response) => ({
        status: response.status,
        body: await response.json(),
      })),
    );
    const deadline = Date.now() + 10_000;
    while (arrived < IN_FLIGHT && Date.now() < deadline) await Bun.sleep(20);
    expect(arrived).toBe(IN_FLIGHT);

    const signalled = performance.now();
    gateway.process.kill("SIGTERM");
    await Bun.sleep(300);
    const afterSignal = await Promise.all([freshRequest(`${system.baseUrl}/healthz`), freshRequest(`${system.adminUrl}/readyz`)]);
    for (const attempt of afterSignal) {
      // Refused or closed unanswered; if the runtime still answered the probe, it must say "not ready".
      if (attempt.outcome === "served") expect(attempt.status).toBe(503);
      else expect(attempt.outcome).not.toBe("timeout");
    }

    const answers = await Promise.all(inFlight);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ answered_by: "slow upstream" });
    }
    const code = await gateway.exited;
    const shutdownMs = performance.now() - signalled;
    console.log(`gateway shutdown took ${Math.round(shutdownMs)} ms (grace ${GRACE_MS} ms); probes after SIGTERM: ${JSON.stringify(afterSignal)}`);
    expect(code).toBe(0);
    expect(shutdownMs).toBeLessThan(GRACE_MS);
    expect((await freshRequest(`${system.baseUrl}/healthz`)).outcome).toBe("refused");
  }, 60_000);
});

describe("when a service gets SIGTERM while a request body is still arriving", () => {
  test("then that request is answered, new connections are refused, and it exits 0 within the grace", async () => {
    // The gateway has stopped by now: the test signs the principal itself, as the gateway would.
    const pages = system.running.children.find((child) => child.name === "pages")!;
    const { port } = new URL(system.pagesUrl);
    const principal = await signPrincipal(
      {
        workspace_id: crypto.randomUUID(),
        member_id: crypto.randomUUID(),
        key_id: crypto.randomUUID(),
        scopes: ["docs:create", "docs:read"],
        target_team_ids: null,
        visible_team_ids: [],
        request_id: "graceful-shutdown-test",
      },
      { method: "POST", path: "/v1/new-page" },
      signingKeyFrom(system.signingKey),
    );
    const body = JSON.stringify({ title: "written during shutdown", content: "x".repeat(1000) });
    const socket = createConnection({ host: "127.0.0.1", port: Number(port) });
    let received = "";
    socket.on("error", (error) => (received += `socket error: ${error.message}`));
    socket.on("data", (chunk) => (received += chunk.toString()));
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    await new Promise<void>((resolve) => socket.on("connect", () => resolve()));
    socket.write(
      `POST /v1/new-page HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
        `x-workspace-principal: ${principal}\r\nConnection: close\r\n\r\n${body.slice(0, 100)}`,
    );
    await Bun.sleep(300);

    const signalled = performance.now();
    pages.process.kill("SIGTERM");
    await Bun.sleep(300);
    const attempt = await freshRequest(`${system.pagesUrl}/healthz`);
    if (attempt.outcome === "served") expect(attempt.status).toBe(503);
    else expect(attempt.outcome).not.toBe("timeout");

    await Bun.sleep(700);
    // write, not end: a client that half-closes its side is taken by Bun as gone, and gets no answer.
    socket.write(body.slice(100));
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 201/);
    expect(received).toContain("written during shutdown");
    const code = await pages.exited;
    const shutdownMs = performance.now() - signalled;
    console.log(`pages shutdown took ${Math.round(shutdownMs)} ms (grace ${GRACE_MS} ms); probe after SIGTERM: ${JSON.stringify(attempt)}`);
    expect(code).toBe(0);
    expect(shutdownMs).toBeLessThan(GRACE_MS);
  }, 60_000);
});

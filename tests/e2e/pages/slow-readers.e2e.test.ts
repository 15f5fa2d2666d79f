import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createConnection } from "node:net";
import { eventually } from "../../harness/eventually";
import { apiClient } from "../../harness/http";
import { parseResponses, portOf } from "../../harness/raw-http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";
import { PAGES } from "./pages-client";

const MiB = 1024 * 1024;
const UPSTREAM_TIMEOUT_MS = 1000;

/**
 * The gateway's timeout bounds how long a service may take to answer, not how
 * long a client may take to read the answer: a client on a slow link reads a
 * large page for longer than that and still gets all of it.
 */
let system: TestSystem;
beforeAll(async () => {
  system = await startSystem({ gatewayEnv: { UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) } });
});
afterAll(() => system?.stop());

/** Asks for `path` on a connection that closes after the answer, reading at about `bytesPerSecond`: every byte received until it closed. */
function readSlowly(path: string, key: string, bytesPerSecond: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = createConnection({ port: portOf(system.baseUrl), host: "127.0.0.1" });
    const pieces: Buffer[] = [];
    socket.on("data", (piece: Buffer) => {
      pieces.push(piece);
      socket.pause();
      setTimeout(() => socket.resume(), (piece.length / bytesPerSecond) * 1000);
    });
    socket.on("error", () => {});
    socket.on("end", () => socket.end());
    socket.on("close", () => resolve(Buffer.concat(pieces)));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
  });
}

describe("clients that read slowly", () => {
  test("when a client reads an 8 MiB page for several times the gateway's timeout, on a connection it asked to close, then it gets the whole page", async () => {
    const key = await (await seedTenant(system)).key();
    const content = "s".repeat(8 * MiB);
    // Made within the 1 s timeout too, which a loaded machine can miss: its 503 says nothing was done, so it is asked again.
    const created = await eventually(() => apiClient(system.baseUrl, key)("POST", PAGES, { title: "large", content }), (answer) => answer.status !== 503, 30_000);
    expect(created.status).toBe(201);
    const page = created.body;
    const startedAt = Date.now();
    // 700 KB/s: about 12 s, well past the timeout, and past the 5 s the gateway reads a closing connection's input
    // after the answer went into the kernel's buffers (several MB of it are still there for the client to read).
    const data = await readSlowly(`${PAGES}/${page.id}`, key, 700_000);
    const tookMs = Date.now() - startedAt;
    console.log(`slow reader: ${(data.length / MiB).toFixed(2)} MiB in ${tookMs} ms (gateway timeout ${UPSTREAM_TIMEOUT_MS} ms)`);
    // Complete answers only: one cut short would not parse as a whole one.
    const { responses } = parseResponses(data, true);
    expect(responses.map((response) => response.status)).toEqual([200]);
    expect(responses[0]!.body.content).toBe(content);
    expect(tookMs).toBeGreaterThan(2 * UPSTREAM_TIMEOUT_MS);
  }, 60_000);
});

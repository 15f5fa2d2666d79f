/**
 * Run by connection-share.e2e.test.ts under a low open-files limit, which the
 * system's processes inherit: the gateway then keeps 64 connections a listener
 * (a client's share: 16). Prints what each client got, and the most file
 * descriptors the gateway held, as JSON:
 * - `lingering`: four clients each keep 16 connections open after their
 *   answers (a `Connection: close` request each, their side left open), then
 *   another client asks five times;
 * - `dropping`: one client opens 100 connections each declaring a body it
 *   never sends (answered 401 at once; the gateway then reads and drops the
 *   body for a while), then another client asks five times.
 */
import { readdirSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import { startSystem } from "../../harness/system";

const system = await startSystem();
const port = Number(new URL(system.baseUrl).port);
const gatewayPid = system.running.children.find((child) => child.name.startsWith("gateway"))!.process.pid!;
const descriptors = () => readdirSync(`/proc/${gatewayPid}/fd`).length;
const LINGERING = "GET /v1/new-page HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
const DROPPING = "POST /v1/new-page HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200000\r\n\r\n";
const held: Socket[] = [];

/** The status the gateway answered on a new connection from `from` ("none" when the connection ended with nothing). */
function ask(from: string, request: string, keepsOpen: boolean): Promise<string> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1", localAddress: from, allowHalfOpen: keepsOpen });
    if (keepsOpen) held.push(socket);
    let data = "";
    const status = () => (data.startsWith("HTTP/1.1 ") ? data.slice(9, 12) : "none");
    socket.on("data", (chunk) => {
      data += chunk;
      if (data.includes("\r\n\r\n")) resolve(status());
    });
    socket.on("end", () => resolve(status()));
    socket.on("close", () => resolve(status()));
    socket.on("error", () => {});
    socket.write(request);
  });
}

async function others(): Promise<string[]> {
  const statuses: string[] = [];
  for (let i = 0; i < 5; i++) statuses.push(await ask("127.0.0.9", LINGERING, false));
  return statuses;
}

try {
  const before = descriptors();
  let most = before;
  const sampling = setInterval(() => (most = Math.max(most, descriptors())), 5);
  const lingering: string[] = [];
  for (let i = 0; i < 16; i++) lingering.push(...(await Promise.all(["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"].map((from) => ask(from, LINGERING, true)))));
  const othersAfterLingering = await others();
  for (const socket of held.splice(0)) socket.destroy();
  const dropping: string[] = [];
  for (let i = 0; i < 100; i++) dropping.push(await ask("127.0.0.6", DROPPING, true));
  const othersAfterDropping = await others();
  clearInterval(sampling);
  most = Math.max(most, descriptors());
  console.log(JSON.stringify({ lingering, othersAfterLingering, dropping, othersAfterDropping, descriptorsBefore: before, descriptorsMost: most }));
} finally {
  for (const socket of held) socket.destroy();
  await system.stop();
}
process.exit(0);

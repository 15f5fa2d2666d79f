/**
 * Run by connection-share.e2e.test.ts under a low open-files limit, which the
 * system's processes inherit: the gateway then keeps 64 connections a listener.
 * Four clients each open 100 connections, a `Connection: close` request each,
 * reading the answer and keeping their side open (each lingers on the
 * gateway); then another client asks once. Prints what each got, and the most
 * file descriptors the gateway held meanwhile, as JSON.
 */
import { readdirSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import { startSystem } from "../../harness/system";

const ATTACKERS = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"];
const EACH = 100;
const system = await startSystem();
const port = Number(new URL(system.baseUrl).port);
const gatewayPid = system.running.children.find((child) => child.name.startsWith("gateway"))!.process.pid!;
const descriptors = () => readdirSync(`/proc/${gatewayPid}/fd`).length;
const REQUEST = "GET /v1/new-page HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
const held: Socket[] = [];

/** The status the gateway answered on a new connection from `from` ("none" when the connection ended with nothing). */
function ask(from: string, keepsOpen: boolean): Promise<string> {
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
    socket.write(REQUEST);
  });
}

try {
  const before = descriptors();
  let most = before;
  const sampling = setInterval(() => (most = Math.max(most, descriptors())), 20);
  const flood: string[] = [];
  for (let i = 0; i < EACH; i++) flood.push(...(await Promise.all(ATTACKERS.map((from) => ask(from, true)))));
  const other = await ask("127.0.0.6", false);
  clearInterval(sampling);
  most = Math.max(most, descriptors());
  console.log(JSON.stringify({ flood, other, descriptorsBefore: before, descriptorsMost: most }));
} finally {
  for (const socket of held) socket.destroy();
  await system.stop();
}
process.exit(0);

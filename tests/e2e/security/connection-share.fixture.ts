/**
 * Run by connection-share.e2e.test.ts under a low open-files limit, which the
 * system's processes inherit: the gateway then keeps 64 connections a listener.
 * One client opens 80 connections, each a `Connection: close` request whose
 * answer it reads while keeping its side open (each lingers on the gateway);
 * then another client asks once. Prints what each got, as JSON.
 */
import { createConnection, type Socket } from "node:net";
import { startSystem } from "../../harness/system";

const FLOOD = 80;
const system = await startSystem();
const port = Number(new URL(system.baseUrl).port);
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
  const flood: string[] = [];
  for (let i = 0; i < FLOOD; i++) flood.push(await ask("127.0.0.2", true));
  const other = await ask("127.0.0.3", false);
  console.log(JSON.stringify({ flood, other, stillOpen: held.filter((socket) => !socket.destroyed).length }));
} finally {
  for (const socket of held) socket.destroy();
  await system.stop();
}
process.exit(0);

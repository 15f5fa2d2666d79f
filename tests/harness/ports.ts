import { createConnection, createServer } from "node:net";

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Bun binds with reusePort, so a leftover process would not stop us listening: check nobody answers either. */
function nobodyAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

/** A block of consecutive ports that are free now, away from the defaults people run by hand. */
export async function freePortBlock(count: number): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 20_000);
    let free = true;
    for (let port = base; port < base + count && free; port++) free = (await canListen(port)) && (await nobodyAnswers(port));
    if (free) return base;
  }
  throw new Error(`no block of ${count} free ports found`);
}

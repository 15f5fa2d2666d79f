import { createConnection, createServer } from "node:net";

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "0.0.0.0", exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Bun binds with reusePort, so a leftover Bun process would not stop a new one listening: check nobody answers either. */
function nobodyAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

/** True when no process listens on the port, with or without reusePort. */
export async function portIsFree(port: number): Promise<boolean> {
  return (await canListen(port)) && (await nobodyAnswers(port));
}

/** A port the system needs, and the variable that chooses it. */
export interface PortUse {
  port: number;
  purpose: string;
  variable: string;
}

export class PortInUseError extends Error {
  constructor(readonly use: PortUse) {
    super(`Port ${use.port} (${use.purpose}) is in use: stop what listens there (\`lsof -i :${use.port}\` shows it), or choose another port with ${use.variable}=….`);
    this.name = "PortInUseError";
  }
}

/** Throws PortInUseError for the first port that is taken, before anything is started. */
export async function assertPortsFree(uses: PortUse[]): Promise<void> {
  const checks = await Promise.all(uses.map(async (use) => ({ use, free: await portIsFree(use.port) })));
  const taken = checks.find((check) => !check.free);
  if (taken) throw new PortInUseError(taken.use);
}

/** A block of consecutive ports that are free now, away from the defaults people run by hand. */
export async function freePortBlock(count: number): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 20_000);
    let free = true;
    for (let port = base; port < base + count && free; port++) free = await portIsFree(port);
    if (free) return base;
  }
  throw new Error(`no block of ${count} free ports found`);
}

import { readFileSync } from "node:fs";
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

const BLOCKS_FROM = 20_000;

/**
 * Where the ports the kernel hands to outgoing connections begin (Linux's
 * default where it cannot be read). A port chosen among them can be taken by
 * any connection opened between the check and the listen (EADDRINUSE).
 */
function ephemeralPortsStart(): number {
  try {
    const start = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > 0 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * A block of consecutive ports that are free now, away from the defaults
 * people run by hand and below the ports of outgoing connections.
 */
export async function freePortBlock(count: number): Promise<number> {
  const ephemeral = ephemeralPortsStart();
  // A machine whose outgoing ports start low leaves no room below them: the old range, then.
  const end = ephemeral - BLOCKS_FROM >= 2_000 ? ephemeral : BLOCKS_FROM + 20_000;
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = BLOCKS_FROM + Math.floor(Math.random() * (end - BLOCKS_FROM - count));
    let free = true;
    for (let port = base; port < base + count && free; port++) free = await portIsFree(port);
    if (free) return base;
  }
  throw new Error(`no block of ${count} free ports found`);
}

import type { Logger } from "../observability/logger";
import type { ListenerFacing, RequestHandler, RunningServer, Runtime } from "./runtime";

export type Listener = RequestHandler & {
  name: string;
  port: number;
  hostname?: string;
  /** Default "clients". */
  facing?: ListenerFacing;
  /** Facing the gateway: how long a drain keeps answering with each connection closing after its answer (connection-drain.ts). */
  drainConnectionsMs?: number;
};

/** What a process's boot step hands to its entry file. */
export interface BootedProcess {
  listeners: Listener[];
  logger: Logger;
  shutdownGraceMs: number;
  /** Called once SIGTERM arrives: readiness must turn false from then on. */
  beginDrain(): void;
  /** Closes pools and clients after the servers have stopped. */
  close(): Promise<void>;
}

/**
 * Serves a booted process on the given runtime and stops it the way Kubernetes
 * expects: not ready, no new connections, in-flight requests finish within the
 * grace, clients closed, exit 0.
 */
export async function runProcess(runtime: Runtime, booted: BootedProcess): Promise<RunningServer[]> {
  const servers: RunningServer[] = [];
  for (const listener of booted.listeners) {
    const hostname = listener.hostname ?? "0.0.0.0";
    const server = await runtime.serve({ port: listener.port, hostname, handler: listener, facing: listener.facing ?? "clients", drainConnectionsMs: listener.drainConnectionsMs });
    booted.logger.info("listening", { listener: listener.name, host: hostname, port: server.port, runtime: runtime.name });
    servers.push(server);
  }
  let stopping = false;
  runtime.onShutdownSignal(async (signal) => {
    if (stopping) return;
    stopping = true;
    booted.logger.info("shutting down", { signal, grace_ms: booted.shutdownGraceMs });
    booted.beginDrain();
    const drained = Promise.all(servers.map((server) => server.drain())).then(() => true);
    const timedOut = new Promise<false>((resolve) => setTimeout(() => resolve(false), booted.shutdownGraceMs));
    if (!(await Promise.race([drained, timedOut]))) {
      booted.logger.warn("grace period over, closing remaining connections");
      await Promise.all(servers.map((server) => server.kill()));
    }
    await booted.close().catch((error) => booted.logger.error("close failed", { error: String(error) }));
    booted.logger.info("stopped");
    runtime.exit(0);
  });
  return servers;
}

import type { Runtime } from "./runtime";

declare const Bun: {
  serve(options: Record<string, unknown>): { port: number; stop(closeActive?: boolean): Promise<void> };
};
interface BunServer {
  requestIP(request: Request): { address: string } | null;
}

export const bunRuntime: Runtime = {
  name: "bun",
  serve({ port, hostname, fetch, maxBodyBytes }) {
    const server = Bun.serve({
      port,
      hostname,
      maxRequestBodySize: maxBodyBytes,
      idleTimeout: 60,
      fetch: (request: Request, bunServer: BunServer) => fetch(request, bunServer.requestIP(request)?.address),
    });
    return { port: server.port, drain: () => server.stop(false), kill: () => server.stop(true) };
  },
  onShutdownSignal(handler) {
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => handler(signal));
  },
  exit: (code) => process.exit(code),
};

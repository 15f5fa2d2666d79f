import type { Runtime } from "./runtime";

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen?: (addr: { port: number }) => void },
    handler: (request: Request, info: { remoteAddr: { hostname?: string } }) => Response | Promise<Response>,
  ): { addr: { port: number }; shutdown(): Promise<void> };
  addSignalListener(signal: string, handler: () => void): void;
  exit(code: number): never;
};

export const denoRuntime: Runtime = {
  name: "deno",
  serve({ port, hostname, fetch }) {
    const abort = new AbortController();
    const server = Deno.serve({ port, hostname, onListen: () => {}, signal: abort.signal } as never,
      (request, info) => fetch(request, info.remoteAddr.hostname),
    );
    return {
      port: server.addr.port,
      drain: () => server.shutdown(),
      kill: async () => {
        abort.abort();
        await server.shutdown().catch(() => {});
      },
    };
  },
  onShutdownSignal(handler) {
    for (const signal of ["SIGTERM", "SIGINT"]) Deno.addSignalListener(signal, () => handler(signal));
  },
  exit: (code) => Deno.exit(code),
};

import { ApiError } from "../errors/api-error";
import { requestIdOf } from "../http/request-id";
import { closingConnection, untilQuiet } from "./connection-drain";
import { fetchUpstreamWith } from "./fetch-upstream";
import { asFetchHandler, type Runtime } from "./runtime";
import { SENT_AGAIN_METHODS } from "./upstream";

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen?: (addr: { port: number }) => void },
    handler: (request: Request, info: { remoteAddr: { hostname?: string } }) => Response | Promise<Response>,
  ): { addr: { port: number }; shutdown(): Promise<void> };
  addSignalListener(signal: string, handler: () => void): void;
  exit(code: number): never;
  createHttpClient(options: { poolMaxIdlePerHost?: number }): unknown;
};

/**
 * Deno's fetch sends a request once more by itself when the reused connection
 * it went on closes before the answer, even when the service had run it (a
 * DELETE then answers 404, a PUT with If-Match 412): a request of any method
 * but the safe ones goes on a connection of its own, never reused. Made on
 * first use: only the gateway sends requests to services.
 */
let ownConnections: unknown;
const sendUpstream = fetchUpstreamWith((request) =>
  SENT_AGAIN_METHODS.has(request.method) ? undefined : { client: (ownConnections ??= Deno.createHttpClient({ poolMaxIdlePerHost: 0 })) },
);

export const denoRuntime: Runtime = {
  name: "deno",
  serve({ port, hostname, handler, drainConnectionsMs = 0 }) {
    const fetch = asFetchHandler(handler);
    // Draining, each answer first closes its connection (connection-drain.ts); then new requests are refused.
    let closing = false;
    let lastRequestAt = performance.now();
    const abort = new AbortController();
    // Deno's shutdown() lets responses finish but cuts request bodies still arriving
    // ("BadResource: Cannot read body"), so drain waits for handlers to return first.
    let inFlight = 0;
    let draining = false;
    let idle: (() => void) | undefined;
    const server = Deno.serve({ port, hostname, onListen: () => {}, signal: abort.signal } as never, async (request, info) => {
      if (draining) {
        // Deno cannot stop accepting without shutdown(): a request that arrives meanwhile is refused, not served.
        const response = new ApiError("service_unavailable", "Shutting down.", { headers: { "retry-after": "1" } }).toResponse(requestIdOf(request));
        response.headers.set("connection", "close");
        return response;
      }
      inFlight += 1;
      try {
        if (!closing) return await fetch(request, info.remoteAddr.hostname);
        lastRequestAt = performance.now();
        return closingConnection(await fetch(request, info.remoteAddr.hostname));
      } finally {
        inFlight -= 1;
        if (draining && inFlight === 0) idle?.();
      }
    });
    return {
      port: server.addr.port,
      drain: async () => {
        closing = true;
        await untilQuiet(() => lastRequestAt, drainConnectionsMs);
        draining = true;
        if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
        await server.shutdown();
      },
      kill: async () => {
        abort.abort();
        await server.shutdown().catch(() => {});
      },
    };
  },
  sendUpstream,
  onShutdownSignal(handler) {
    for (const signal of ["SIGTERM", "SIGINT"]) Deno.addSignalListener(signal, () => handler(signal));
  },
  exit: (code) => Deno.exit(code),
};

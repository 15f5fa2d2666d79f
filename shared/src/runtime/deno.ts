import { ApiError } from "../errors/api-error";
import { SERVER_MAX_HEAD_BYTES } from "../http/header-limits";
import { requestIdOf } from "../http/request-id";
import { closingConnection, untilQuiet } from "./connection-drain";
import { Http1Client } from "./http1/client";
import type { Http1Connection } from "./http1/connection";
import { Http1Server } from "./http1/server";
import type { ClientWire, SocketEvents } from "./http1/client-connection";
import { PromiseSocketWire, SERVER_READ_BYTES, type PromiseSocket } from "./promise-socket-wire";
import { asFetchHandler, type RequestHandler, type RunningServer, type Runtime } from "./runtime";

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen?: (addr: { port: number }) => void },
    handler: (request: Request, info: { remoteAddr: { hostname?: string } }) => Response | Promise<Response>,
  ): { addr: { port: number }; shutdown(): Promise<void> };
  addSignalListener(signal: string, handler: () => void): void;
  exit(code: number): never;
  connect(options: { hostname: string; port: number; transport: "tcp" }): Promise<DenoConn>;
  listen(options: { hostname: string; port: number; transport: "tcp" }): { accept(): Promise<DenoConn>; addr: { port: number }; close(): void };
};
type DenoConn = PromiseSocket & { setNoDelay(on: boolean): void; closeWrite(): Promise<void>; remoteAddr: { hostname: string } };

/**
 * A listener facing any HTTP client: our own HTTP/1.1 server (http1/), as on
 * Bun, over Deno's TCP connections. Deno.serve decides what a malformed or
 * oversized request gets by itself: an empty 400 where the API answers its
 * error object (a head over the limit, framing it refuses, a folded field),
 * nothing at all for a bad chunk size, and it takes HTTP/2 with prior
 * knowledge, bare-LF heads and such Hosts as `a@b`, which the gateway refuses
 * on Bun. Here both runtimes read requests the same way.
 */
function listenHttp1(options: { port: number; hostname: string; handler: RequestHandler }): RunningServer {
  const server = new Http1Server({ handler: options.handler, maxHeaderBytes: SERVER_MAX_HEAD_BYTES });
  const listener = Deno.listen({ hostname: options.hostname, port: options.port, transport: "tcp" });
  const wires = new Set<PromiseSocketWire>();
  let closed = false;
  const open = (conn: DenoConn) => {
    let connection: Http1Connection | undefined;
    const wire: PromiseSocketWire = new PromiseSocketWire(
      conn,
      {
        onData: (chunk) => connection!.onData(chunk as Buffer),
        onDrain: () => connection!.onDrain(),
        onEnd: () => connection!.onEnd(),
        onClose: () => {
          wires.delete(wire);
          server.closed(connection!);
        },
      },
      { remoteAddress: conn.remoteAddr.hostname, readBytes: SERVER_READ_BYTES },
    );
    wires.add(wire);
    connection = server.open(wire);
    try {
      conn.setNoDelay(true);
    } catch {
      // Already closed by its client: the wire hears of it.
    }
  };
  void (async () => {
    while (!closed) {
      try {
        open(await listener.accept());
      } catch {
        // No descriptor left, or a connection gone before it was taken: accepting goes on (a moment later), until closed here.
        if (!closed) await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  })();
  return {
    port: listener.addr.port,
    drain: async () => {
      closed = true;
      listener.close();
      await server.drain();
    },
    kill: async () => {
      closed = true;
      server.stop();
      listener.close();
      for (const wire of wires) wire.terminate();
    },
  };
}

/** A TCP connection to a service, for the gateway's HTTP/1.1 client. */
export async function dialDeno(hostname: string, port: number, events: SocketEvents): Promise<ClientWire> {
  const socket = await Deno.connect({ hostname, port, transport: "tcp" });
  // A request head and its body go in separate writes at times: neither may wait for the other's ACK.
  socket.setNoDelay(true);
  return new PromiseSocketWire(socket, events);
}

/**
 * The hop goes through the same HTTP/1.1 client as on Bun, not Deno's fetch:
 * fetch sends a request once more by itself when the reused connection it
 * went on closes before the answer, even when the service had run it (a
 * DELETE then answers 404, a PUT with If-Match 412), and keeping writes off
 * reused connections cost a TCP connection each (one socket in TIME_WAIT per
 * write). Made on first use: only the gateway sends requests to services.
 */
let upstreamClient: Http1Client | undefined;
const sendUpstream: Runtime["sendUpstream"] = (request) => (upstreamClient ??= new Http1Client(dialDeno)).send(request);

export const denoRuntime: Runtime = {
  name: "deno",
  serve({ port, hostname, handler, facing, drainConnectionsMs = 0 }) {
    if (facing === "clients") return listenHttp1({ port, hostname, handler });
    const fetch = asFetchHandler(handler);
    // Draining, each answer first closes its connection (connection-drain.ts); then new requests are refused.
    let closing = false;
    let lastRequestAt = 0;
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
        // Quiet is counted from the drain's start: before it, requests were not counted.
        lastRequestAt = performance.now();
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

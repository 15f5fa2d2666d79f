import { SERVER_MAX_HEAD_BYTES } from "../http/header-limits";
import { closingConnection, untilQuiet } from "./connection-drain";
import { Http1Client } from "./http1/client";
import type { ClientWire, SocketEvents } from "./http1/client-connection";
import type { Http1Connection, Wire } from "./http1/connection";
import { Http1Server, type Http1Timeouts } from "./http1/server";
import { asFetchHandler, type RequestHandler, type RunningServer } from "./runtime";
import type { Runtime } from "./runtime";

/** Bun's TCP socket is the connection's wire as it is, carrying the connection as its data. */
interface BunSocket extends Wire {
  data: Http1Connection;
}

declare const Bun: {
  serve(options: Record<string, unknown>): { port: number; stop(closeActive?: boolean): Promise<void>; reload(options: Record<string, unknown>): void };
  listen(options: Record<string, unknown>): { port: number; stop(closeActive?: boolean): void };
  connect(options: Record<string, unknown>): Promise<ClientWire>;
};

/**
 * A listener facing any HTTP client: our own HTTP/1.1 server (http1/) over
 * Bun's TCP sockets. Bun.serve (Bun 1.4) closes a connection with nothing
 * written when a second pipelined request arrives while the first one's
 * handler still runs (the first has run, so a retrying client repeats it), and
 * loses an answer sent before the request body was read (413, 429, 503);
 * node:http in Bun answers both right but costs about 15 µs and 27 MB more
 * under load.
 */
export function listenHttp1(options: {
  port: number;
  hostname: string;
  handler: RequestHandler;
  maxHeaderBytes?: number;
  timeouts?: Partial<Http1Timeouts>;
  unfinishedHeadsMaxBytes?: number;
  maxConnections?: number;
}): RunningServer {
  const { port, hostname, handler } = options;
  const server = new Http1Server({ handler, maxHeaderBytes: options.maxHeaderBytes ?? SERVER_MAX_HEAD_BYTES, timeouts: options.timeouts, unfinishedHeadsMaxBytes: options.unfinishedHeadsMaxBytes, maxConnections: options.maxConnections });
  const listener = Bun.listen({
    hostname,
    port,
    // A client that sends its requests and then half-closes still gets its answers.
    allowHalfOpen: true,
    socket: {
      open(socket: BunSocket) {
        socket.data = server.open(socket);
      },
      data: (socket: BunSocket, chunk: Buffer) => socket.data.onData(chunk),
      drain: (socket: BunSocket) => socket.data.onDrain(),
      end: (socket: BunSocket) => socket.data.onEnd(),
      close: (socket: BunSocket) => server.closed(socket.data),
      error: () => {},
    },
  });
  return {
    port: listener.port,
    drain: async () => {
      listener.stop(false);
      await server.drain();
    },
    kill: async () => {
      server.stop();
      listener.stop(true);
    },
  };
}

/** A TCP connection to a service, for the gateway's HTTP/1.1 client. */
export function dialBun(hostname: string, port: number, events: SocketEvents): Promise<ClientWire> {
  return Bun.connect({
    hostname,
    port,
    data: events,
    socket: {
      // A request head and its body go in separate writes at times: neither may wait for the other's ACK.
      open: (socket: { setNoDelay(on: boolean): void }) => socket.setNoDelay(true),
      data: (socket: { data: SocketEvents }, chunk: Buffer) => socket.data.onData(chunk),
      drain: (socket: { data: SocketEvents }) => socket.data.onDrain(),
      // The client never half-closes: the service's FIN ends the connection (Bun then closes it).
      end: (socket: { data: SocketEvents }) => socket.data.onClose(),
      close: (socket: { data: SocketEvents }) => socket.data.onClose(),
      error: () => {},
    },
  });
}

/** Made on first use: only the gateway sends requests to services. */
let upstreamClient: Http1Client | undefined;

export const bunRuntime: Runtime = {
  name: "bun",
  serve({ port, hostname, handler, facing, drainConnectionsMs = 0 }) {
    if (facing === "clients") return listenHttp1({ port, hostname, handler });
    const fetch = asFetchHandler(handler);
    // A service is reached by the gateway's fetch alone, which never pipelines and reads an early
    // answer: Bun.serve, faster still. Its header limit is the --max-http-header-size flag every
    // Bun process is started with (scripts/system/processes.ts).
    // Its only caller is the gateway, whose address nothing here reads: it is not looked up (about 1 µs a request).
    const server = Bun.serve({ port, hostname, idleTimeout: 60, fetch: (request: Request) => fetch(request) });
    return {
      port: server.port,
      drain: async () => {
        // stop(false) closes idle keep-alive connections at once, where the gateway may be writing a request.
        let lastRequestAt = performance.now();
        server.reload({
          fetch: async (request: Request) => {
            lastRequestAt = performance.now();
            return closingConnection(await fetch(request));
          },
        });
        await untilQuiet(() => lastRequestAt, drainConnectionsMs);
        await server.stop(false);
      },
      kill: () => server.stop(true),
    };
  },
  sendUpstream: (request) => (upstreamClient ??= new Http1Client(dialBun)).send(request),
  onShutdownSignal(handler) {
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => handler(signal));
  },
  exit: (code) => process.exit(code),
};

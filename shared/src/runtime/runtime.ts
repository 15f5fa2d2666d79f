import type { IncomingHandler } from "./incoming-request";
import { toResponse } from "./plain-answer";
import type { SendUpstream } from "./upstream";

/** The second argument is the client's address as the runtime saw it, where a listener facing clients needs it (Bun does not look it up for one facing the gateway). */
export type FetchHandler = (request: Request, clientAddress?: string) => Response | Promise<Response>;

/**
 * How a listener's requests reach the application: each as a fetch `Request`,
 * or as an `IncomingRequest` (the runtime's own `Request` where it has one; on
 * our HTTP/1.1 server the parsed request, a `Request` built only on demand).
 */
export type RequestHandler = { fetch: FetchHandler } | { incoming: IncomingHandler };

/** The handler as a fetch handler, for a server that makes a `Request` of every request (Deno's, `Bun.serve`). */
export function asFetchHandler(handler: RequestHandler): FetchHandler {
  if ("fetch" in handler) return handler.fetch;
  const { incoming } = handler;
  return async (request, clientAddress) => toResponse(await incoming(request, clientAddress));
}

export interface RunningServer {
  port: number;
  /** Stops accepting connections and resolves once in-flight requests have finished. */
  drain(): Promise<void>;
  /** Closes every connection at once. */
  kill(): Promise<void>;
}

/** Who connects: any HTTP client (the gateway's ports), or only the gateway (a service's port). */
export type ListenerFacing = "clients" | "gateway";

/** The little a process needs from its runtime; one adapter per runtime implements it. */
export interface Runtime {
  name: "bun" | "deno";
  /** Request bodies are not limited here: the application limits each body while it reads it. */
  serve(options: {
    port: number;
    hostname: string;
    handler: RequestHandler;
    facing: ListenerFacing;
    /** Facing the gateway: how long a drain keeps answering, each answer closing its connection, before it stops (connection-drain.ts). */
    drainConnectionsMs?: number;
  }): RunningServer | Promise<RunningServer>;
  /** The gateway's requests to its services. */
  sendUpstream: SendUpstream;
  onShutdownSignal(handler: (signal: string) => void): void;
  exit(code: number): never;
}

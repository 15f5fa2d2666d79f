import type { SendUpstream } from "./upstream";

/** The second argument is the client's address as the runtime saw it, where a listener facing clients needs it (Bun does not look it up for one facing the gateway). */
export type FetchHandler = (request: Request, clientAddress?: string) => Response | Promise<Response>;

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
  serve(options: { port: number; hostname: string; fetch: FetchHandler; facing: ListenerFacing }): RunningServer | Promise<RunningServer>;
  /** The gateway's requests to its services. */
  sendUpstream: SendUpstream;
  onShutdownSignal(handler: (signal: string) => void): void;
  exit(code: number): never;
}

import { PARSER_MAX_HEADER_BYTES } from "../http/header-limits";
import { serveNodeHttp } from "./node-http";
import type { Runtime } from "./runtime";

declare const Bun: {
  serve(options: Record<string, unknown>): { port: number; stop(closeActive?: boolean): Promise<void> };
};

export const bunRuntime: Runtime = {
  name: "bun",
  serve({ port, hostname, fetch, facing }) {
    // What any HTTP client reaches gets node:http's strict HTTP/1.1 handling (see serveNodeHttp).
    if (facing === "clients") return serveNodeHttp({ port, hostname, fetch, maxHeaderBytes: PARSER_MAX_HEADER_BYTES });
    // A service is reached by the gateway's fetch alone, which never pipelines and reads an early
    // answer: Bun.serve, faster by tens of microseconds a request. Its header limit is the
    // --max-http-header-size flag every Bun process is started with (scripts/system/processes.ts).
    // Its only caller is the gateway, whose address nothing here reads: it is not looked up (about 1 µs a request).
    const server = Bun.serve({ port, hostname, idleTimeout: 60, fetch: (request: Request) => fetch(request) });
    return { port: server.port, drain: () => server.stop(false), kill: () => server.stop(true) };
  },
  onShutdownSignal(handler) {
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => handler(signal));
  },
  exit: (code) => process.exit(code),
};

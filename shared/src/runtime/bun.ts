import { PARSER_MAX_HEADER_BYTES } from "../http/header-limits";
import { serveNodeHttp } from "./node-http";
import type { Runtime } from "./runtime";

export const bunRuntime: Runtime = {
  name: "bun",
  // Bun's node:http, not Bun.serve: see serveNodeHttp for the HTTP/1.1 behaviour this buys.
  serve: ({ port, hostname, fetch }) => serveNodeHttp({ port, hostname, fetch, maxHeaderBytes: PARSER_MAX_HEADER_BYTES }),
  onShutdownSignal(handler) {
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => handler(signal));
  },
  exit: (code) => process.exit(code),
};

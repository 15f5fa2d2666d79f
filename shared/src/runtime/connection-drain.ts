import { UPSTREAM_IDLE_MS } from "./upstream";

/**
 * How long a service's drain keeps answering by default, each answer closing
 * its connection, before it stops: past the time the gateway keeps an idle
 * connection to it (UPSTREAM_IDLE_MS, swept every quarter of that), so no
 * connection of the gateway's is left for the service to close under a
 * request being written. Closed under one, a write the service never read is
 * a 502 (outcome unknown) at the gateway: seen on every restart under load.
 */
export const DRAIN_CONNECTIONS_MS = UPSTREAM_IDLE_MS + UPSTREAM_IDLE_MS / 4 + 500;

/** A drain ends early once no request has come for this long: the gateway has stopped sending. */
const QUIET_MS = 1_000;

/** The same answer, closing its connection once it has gone out. */
export function closingConnection(response: Response): Response {
  try {
    response.headers.set("connection", "close");
    return response;
  } catch {
    // Immutable headers (a fetched or redirect Response): the same answer, anew.
    const headers = new Headers(response.headers);
    headers.set("connection", "close");
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

/** Resolves once no request has come for QUIET_MS (`lastRequestAt`, a performance.now() instant), or `mostMs` have passed. */
export async function untilQuiet(lastRequestAt: () => number, mostMs: number): Promise<void> {
  const until = performance.now() + mostMs;
  for (;;) {
    const now = performance.now();
    const wait = Math.min(until - now, lastRequestAt() + QUIET_MS - now);
    if (wait <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

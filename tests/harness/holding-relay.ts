import { freePortBlock } from "./ports";

/**
 * A relay between the gateway and a real service that a test can hold shut
 * (requests wait at it until released) or have answer 503 itself, so that a
 * request can be caught while it runs. It counts what it passes on.
 */
export async function holdingRelay() {
  const port = await freePortBlock(1);
  let target: string | undefined;
  let gate: Promise<void> | undefined;
  let unavailable = 0;
  const arrivals: { method: string; path: string }[] = [];
  const listeners: (() => void)[] = [];

  const server = Bun.serve({
    port,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      if (url.pathname !== "/readyz" && url.pathname !== "/healthz") {
        arrivals.push({ method: request.method, path: url.pathname });
        for (const listener of listeners.splice(0)) listener();
      }
      if (unavailable > 0 && url.pathname !== "/readyz") {
        unavailable--;
        return Response.json(
          { error: { code: "service_unavailable", message: "The relay stands for a service that did not run the request." } },
          { status: 503, headers: { "retry-after": "1" } },
        );
      }
      if (gate) await gate;
      if (!target) return new Response("no target yet", { status: 503 });
      const upstream = await fetch(target + url.pathname + url.search, { method: request.method, headers: request.headers, body });
      return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
    },
  });

  return {
    url: `http://127.0.0.1:${port}`,
    setTarget(url: string) {
      target = url;
    },
    /** Holds every request that arrives from now on until the returned function is called. */
    hold(): () => void {
      let release!: () => void;
      gate = new Promise((resolve) => {
        release = () => {
          gate = undefined;
          resolve();
        };
      });
      return release;
    },
    /** The next `count` requests are answered 503 by the relay itself, as a service that did not run them. */
    answerUnavailable(count: number) {
      unavailable = count;
    },
    /** How many requests with this method and path arrived so far. */
    count(method: string, path: string): number {
      return arrivals.filter((arrival) => arrival.method === method && arrival.path.replace(/\/$/, "") === path).length;
    },
    /** Resolves once `count` requests with this method and path have arrived. */
    async arrived(method: string, path: string, count: number): Promise<void> {
      while (this.count(method, path) < count) await new Promise<void>((resolve) => listeners.push(resolve));
    },
    stop() {
      server.stop(true);
    },
  };
}
export type HoldingRelay = Awaited<ReturnType<typeof holdingRelay>>;

/** The floor: a bare reverse proxy with no auth, no rate limit, no principal. */
const upstream = process.env.UPSTREAM_URL!;
const server = Bun.serve({
  port: Number(process.env.PORT),
  hostname: "127.0.0.1",
  async fetch(request) {
    const url = new URL(request.url);
    const response = await fetch(upstream + url.pathname + url.search, { method: request.method, headers: request.headers });
    return new Response(response.body, { status: response.status, headers: response.headers });
  },
});
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
export {};

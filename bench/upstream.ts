/** The cheap upstream: stands in for a service, answers a small JSON at once. */
const body = JSON.stringify({ id: "0190d6a0-0000-7000-8000-000000000000", title: "Bench page", content: "" });
const server = Bun.serve({
  port: Number(process.env.PORT),
  hostname: "127.0.0.1",
  fetch: () => new Response(body, { headers: { "content-type": "application/json" } }),
});
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
export {};

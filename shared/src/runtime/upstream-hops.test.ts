import { afterEach, describe, expect, test } from "bun:test";
import { dialBun } from "./bun";
import { fetchUpstream } from "./fetch-upstream";
import { Http1Client } from "./http1/client";
import type { SendUpstream, UpstreamRequest } from "./upstream";

/** Both ways a runtime sends the gateway's hop to a service (Deno's fetch, Bun's HTTP/1.1 client), here both on Bun against a Bun.serve service. */
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function service(body: () => ReadableStream<Uint8Array>, length: number): string {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(body(), { headers: { "content-length": String(length) } }) });
  cleanups.push(() => server.stop(true));
  return `http://127.0.0.1:${server.port}`;
}

const request = (origin: string, deadlineMs: number): UpstreamRequest => ({ origin, method: "GET", pathAndQuery: "/", headers: [], body: null, deadline: performance.now() + deadlineMs });

const HOPS: [string, () => SendUpstream][] = [
  ["fetch", () => fetchUpstream],
  [
    "the HTTP/1.1 client",
    () => {
      const client = new Http1Client(dialBun);
      cleanups.push(() => client.close());
      return client.send;
    },
  ],
];

for (const [name, hop] of HOPS) describe(`the hop to a service over ${name}`, () => {
  test("when a streamed answer is read more slowly than its deadline allows, then it is read whole: only the service's silence counts", async () => {
    const total = 1024 * 1024;
    const origin = service(() => new Response(new Uint8Array(total).fill(98)).body!, total);
    const answer = await hop()(request(origin, 200));
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    const startedAt = performance.now();
    let received = 0;
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      received += next.value.byteLength;
      await Bun.sleep(100);
    }
    expect(received).toBe(total);
    expect(performance.now() - startedAt).toBeGreaterThan(300);
  });

  test("when the service sends nothing more of a streamed answer, for as long as it had to answer, while it is read, then its body fails with a TimeoutError", async () => {
    const origin = service(
      () =>
        new ReadableStream<Uint8Array>({
          start: (controller) => controller.enqueue(new Uint8Array(100 * 1024).fill(97)),
          // The rest never comes.
          pull: () => new Promise(() => {}),
        }),
      1024 * 1024,
    );
    const answer = await hop()(request(origin, 200));
    const startedAt = performance.now();
    const error = await new Response(answer.body).bytes().catch((caught) => caught);
    expect(error.name).toBe("TimeoutError");
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(150);
  });
});

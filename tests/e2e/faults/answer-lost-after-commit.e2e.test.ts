import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect, createServer, type Server, type Socket } from "node:net";
import { expectOutcomeUnknown } from "../../harness/assertions";
import { apiClient, type Call } from "../../harness/http";
import { freePortBlock } from "../../harness/ports";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";

/**
 * A TCP relay between the gateway and the pages service that passes
 * everything on, except that the connection carrying one chosen request is
 * cut the moment the service starts answering it: the service has run it and
 * committed, and the gateway never learns how it went.
 */
async function cuttingRelay(target: () => number) {
  const port = await freePortBlock(1);
  let cutOn: string | undefined;
  const requestLines: string[] = [];
  const server: Server = createServer((down: Socket) => {
    const up = connect(target(), "127.0.0.1");
    let cutting = false;
    down.on("data", (bytes) => {
      const text = bytes.toString("latin1");
      if (/^[A-Z]+ \//.test(text)) requestLines.push(text.slice(0, text.indexOf("\r\n")));
      if (cutOn !== undefined && bytes.toString("latin1").startsWith(cutOn)) {
        cutOn = undefined;
        cutting = true;
      }
      up.write(bytes);
    });
    up.on("data", (bytes) => {
      if (!cutting) return void down.write(bytes);
      down.destroy();
      up.destroy();
    });
    down.on("close", () => up.destroy());
    up.on("close", () => down.destroy());
    down.on("error", () => {});
    up.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    /** How many requests the service was sent whose request line starts with this. */
    sent: (requestLine: string) => requestLines.filter((line) => line.startsWith(requestLine)).length,
    /** The next request whose request line starts with this loses its answer. */
    cutAnswerOf: (requestLine: string) => (cutOn = requestLine),
    close: () => server.close(),
  };
}

let system: TestSystem;
let relay: Awaited<ReturnType<typeof cuttingRelay>>;
let call: Call;

beforeAll(async () => {
  relay = await cuttingRelay(() => Number(new URL(system.pagesUrl).port));
  system = await startSystem({ withoutRedis: true, gatewayEnv: { PAGES_URL: relay.url } });
  call = apiClient(system.baseUrl, await (await seedTenant(system)).key({ rate_limit_per_minute: 1_000_000 }));
}, 120_000);

afterAll(async () => {
  await system?.stop();
  relay?.close();
});

/** A page, read once so that the gateway's next request to the service goes over a connection it used before. */
async function pageOnAUsedConnection(): Promise<{ id: string; etag: string }> {
  const created = await call("POST", "/v1/new-page", { title: "answer lost", content: "before" });
  expect(created.status).toBe(201);
  expect((await call("GET", `/v1/new-page/${created.body.id}`)).status).toBe(200);
  return { id: created.body.id, etag: created.headers.get("etag")! };
}

describe("a write whose answer is lost after the service committed it", () => {
  test("when a DELETE's answer is lost, then the client is told the outcome is unknown (not 404), and the page is gone", async () => {
    for (const ifMatch of [false, true]) {
      const page = await pageOnAUsedConnection();
      relay.cutAnswerOf(`DELETE /v1/new-page/${page.id}`);
      const deleted = await call("DELETE", `/v1/new-page/${page.id}`, undefined, ifMatch ? { "if-match": page.etag } : {});
      expectOutcomeUnknown(deleted);
      expect(deleted.headers.get("retry-after")).toBe("1");
      expect(relay.sent(`DELETE /v1/new-page/${page.id}`)).toBe(1);
      expect((await call("GET", `/v1/new-page/${page.id}`)).status).toBe(404);
    }
  });

  test("when a conditional PUT's answer is lost, then the client is told the outcome is unknown (not 412), and the update is there", async () => {
    const page = await pageOnAUsedConnection();
    relay.cutAnswerOf(`PUT /v1/new-page/${page.id}`);
    const updated = await call("PUT", `/v1/new-page/${page.id}`, { content: "after" }, { "if-match": page.etag });
    expectOutcomeUnknown(updated);
    const read = await call("GET", `/v1/new-page/${page.id}`);
    expect(read.body.content).toBe("after");
  });

  test("when a PUT's answer is lost, then it is not sent to the service a second time, and the update is there", async () => {
    const page = await pageOnAUsedConnection();
    relay.cutAnswerOf(`PUT /v1/new-page/${page.id}`);
    const updated = await call("PUT", `/v1/new-page/${page.id}`, { content: "after" });
    expectOutcomeUnknown(updated);
    expect(relay.sent(`PUT /v1/new-page/${page.id}`)).toBe(1);
    expect((await call("GET", `/v1/new-page/${page.id}`)).body.content).toBe("after");
  });
});

import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createConnection, type Socket } from "node:net";
import { listenHttp1 } from "../bun";
import { toFetchRequest } from "../incoming-request";
import { PlainAnswer } from "../plain-answer";
import type { FetchHandler, RequestHandler, RunningServer } from "../runtime";
import type { Http1Timeouts } from "./server";
import { SERVER_MAX_HEAD_BYTES } from "../../http/header-limits";

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.kill();
});

/** Every test runs twice: with a fetch handler, and with an incoming handler that asks for the fetch Request only then. */
const HANDLER_KINDS = ["fetch", "incoming"] as const;
let handlerKind: (typeof HANDLER_KINDS)[number] = "fetch";
const handlerOf = (fetch: FetchHandler): RequestHandler =>
  handlerKind === "fetch" ? { fetch } : { incoming: (request, peer) => fetch(toFetchRequest(request), peer) };

function serve(fetch: FetchHandler, timeouts?: Partial<Http1Timeouts>, maxHeaderBytes?: number, unfinishedHeadsMaxBytes?: number, maxConnections?: number): number {
  const server = listenHttp1({ port: 0, hostname: "127.0.0.1", handler: handlerOf(fetch), timeouts, maxHeaderBytes, unfinishedHeadsMaxBytes, maxConnections });
  servers.push(server);
  return server.port;
}

/** A raw client: what it received so far, whether the server closed, and a way to wait for either. */
/**
 * `from`: the client's own address (any 127.x.y.z is this machine), for the limits kept per client address.
 * `keepsOpen`: the client does not close its side when the server closes its own (as a client that lingers would).
 */
function connect(port: number, from?: string, keepsOpen = false) {
  const socket: Socket = createConnection({ port, host: "127.0.0.1", localAddress: from, allowHalfOpen: keepsOpen });
  const state: { data: Buffer; closed: boolean; reset: boolean } = { data: Buffer.alloc(0), closed: false, reset: false };
  let waiters: (() => void)[] = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  socket.on("data", (chunk) => {
    state.data = Buffer.concat([state.data, chunk as Buffer]);
    wake();
  });
  socket.on("error", (error: NodeJS.ErrnoException) => {
    state.reset = error.code !== undefined;
  });
  socket.on("close", () => {
    state.closed = true;
    wake();
  });
  const until = async (done: () => boolean, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    while (!done() && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  return {
    socket,
    state,
    text: () => state.data.toString("latin1"),
    write: (bytes: string | Buffer) => new Promise<void>((resolve) => socket.write(bytes, () => resolve())),
    /** Waits until `count` answers' status lines have arrived, or the connection closed. */
    answers: async (count: number, timeoutMs = 5000) => {
      const statuses = () => [...state.data.toString("latin1").matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
      await until(() => statuses().filter((status) => status !== 100).length >= count || state.closed, timeoutMs);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return statuses();
    },
    untilClosed: (timeoutMs = 5000) => until(() => state.closed, timeoutMs),
    untilText: (text: string, timeoutMs = 5000) => until(() => state.data.toString("latin1").includes(text), timeoutMs),
    close: () => socket.destroy(),
  };
}

const echoPath: FetchHandler = (request) => new Response(new URL(request.url).pathname, { headers: { "content-type": "text/plain" } });

for (const kind of HANDLER_KINDS) describe(`the gateway's HTTP/1.1 server, with ${kind === "fetch" ? "a fetch" : "an incoming"} handler`, () => {
  beforeAll(() => {
    handlerKind = kind;
  });

  test("when requests are pipelined, then each runs once, one after the other, and the answers come in the order asked", async () => {
    const ran: string[] = [];
    let running = 0;
    const port = serve(async (request) => {
      const path = new URL(request.url).pathname;
      running++;
      ran.push(`${path}:${running}`);
      await new Promise((resolve) => setTimeout(resolve, path === "/a" ? 60 : 5));
      running--;
      return new Response(path);
    });
    const client = connect(port);
    await client.write("GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET /c HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await client.answers(3)).toEqual([200, 200, 200]);
    expect(ran).toEqual(["/a:1", "/b:1", "/c:1"]);
    expect([...client.text().matchAll(/\r\n\r\n(\/[abc])/g)].map((match) => match[1])).toEqual(["/a", "/b", "/c"]);
    client.close();
  });

  test("when an answer goes out before the body was read, then the client reads it and the next request on the connection is answered", async () => {
    const port = serve((request) => (new URL(request.url).pathname === "/upload" ? new Response("too large", { status: 413 }) : echoPath(request)));
    const client = connect(port);
    await client.write(`PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 20000\r\n\r\n${"x".repeat(20000)}GET /after HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(await client.answers(2)).toEqual([413, 200]);
    expect(client.text()).toEndWith("/after");
    client.close();
  });

  test("when a long body is left unread by an early answer, then the answer arrives whole and the connection closes without a reset", async () => {
    const port = serve(() => new Response("no", { status: 429 }));
    const client = connect(port);
    const body = Buffer.alloc(4 * 1024 * 1024, 120);
    void client.write(Buffer.concat([Buffer.from(`PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`), body]));
    expect(await client.answers(1)).toEqual([429]);
    expect(client.text()).toContain("connection: close");
    expect(client.text()).toEndWith("\r\n\r\nno");
    client.socket.end();
    await client.untilClosed();
    expect(client.state.reset).toBe(false);
  });

  test("when a body is chunked, then the handler reads it whole", async () => {
    const port = serve(async (request) => new Response(`got ${await request.text()}`));
    const client = connect(port);
    await client.write("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
    await new Promise((resolve) => setTimeout(resolve, 30));
    await client.write("6;x=y\r\n world\r\n0\r\n\r\n");
    expect(await client.answers(1)).toEqual([200]);
    expect(client.text()).toEndWith("got hello world");
    client.close();
  });

  test("when a chunked body's framing is broken, then the handler's read fails and the connection closes after the answer", async () => {
    const port = serve(async (request) => {
      try {
        await request.text();
        return new Response("read");
      } catch {
        return new Response("cut", { status: 400 });
      }
    });
    const client = connect(port);
    await client.write("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await client.answers(2)).toEqual([400]);
    await client.untilClosed();
    expect(client.text()).not.toContain("smuggled");
  });

  test("when the client expects 100-continue, then it is told to go on only once the handler reads the body", async () => {
    const port = serve(async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return new Response(`got ${await request.text()}`);
    });
    const client = connect(port);
    await client.write("PUT /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(client.text()).toBe("");
    await client.untilText("100 Continue");
    expect(client.text()).toBe("HTTP/1.1 100 Continue\r\n\r\n");
    await client.write("hello");
    expect(await client.answers(1)).toEqual([100, 200]);
    expect(client.text()).toEndWith("got hello");
    client.close();
  });

  test("when the handler does not read an upload, then the server stops reading it (the bytes wait in the client)", async () => {
    let release = () => {};
    const port = serve(async (request) => {
      await new Promise<void>((resolve) => (release = resolve));
      return new Response(`${(await request.bytes()).byteLength}`);
    });
    const client = connect(port);
    const size = 32 * 1024 * 1024;
    void client.write(Buffer.concat([Buffer.from(`PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: ${size}\r\n\r\n`), Buffer.alloc(size, 1)]));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The kernel buffers take a few MB at most; the rest waits in the client.
    expect(client.socket.writableLength).toBeGreaterThan(size / 2);
    release();
    expect(await client.answers(1, 20_000)).toEqual([200]);
    expect(client.text()).toEndWith(`\r\n\r\n${size}`);
    client.close();
  });

  test("when a client goes away in the middle of its body, then the handler's read fails", async () => {
    let failure: unknown;
    const handled = new Promise<void>((resolve) => {
      serve(async (request) => {
        try {
          await request.text();
        } catch (error) {
          failure = error;
        }
        resolve();
        return new Response("");
      });
    });
    const port = (servers.at(-1) as RunningServer).port;
    const client = connect(port);
    await client.write("PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly part");
    await new Promise((resolve) => setTimeout(resolve, 50));
    client.close();
    await handled;
    expect(failure).toBeInstanceOf(Error);
  });

  test("when a client sends a whole request and half-closes, then it still gets every answer", async () => {
    const port = serve(echoPath);
    const client = connect(port);
    client.socket.end("GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\n\r\n");
    await client.untilClosed();
    expect(client.text()).toContain("/one");
    expect(client.text()).toEndWith("/two");
  });

  test("when the request is HEAD, then the answer has the headers, the GET's length and no body", async () => {
    const port = serve(() => new Response(null, { headers: { "content-length": "42", "x-a": "b" } }));
    const client = connect(port);
    await client.write("HEAD /x HTTP/1.1\r\nHost: x\r\n\r\nHEAD /y HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await client.answers(2)).toEqual([200, 200]);
    const text = client.text();
    expect(text.match(/content-length: 42\r\n/g)?.length).toBe(2);
    expect(text).toEndWith("\r\n\r\n");
    client.close();
  });

  test("when the answer has no declared length, then it is chunked (HTTP/1.1) or ends with the connection (HTTP/1.0)", async () => {
    const stream = () =>
      new ReadableStream({
        start(controller) {
          for (const part of ["one ", "two ", "three"]) controller.enqueue(new TextEncoder().encode(part));
          controller.close();
        },
      });
    const port = serve(() => new Response(stream()));
    const client = connect(port);
    await client.write("GET /x HTTP/1.1\r\nHost: x\r\n\r\n");
    await client.answers(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(client.text()).toContain("transfer-encoding: chunked");
    expect(client.text()).toEndWith("\r\n\r\n4\r\none \r\n4\r\ntwo \r\n5\r\nthree\r\n0\r\n\r\n");
    client.close();
    const old = connect(port);
    await old.write("GET /x HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    await old.untilClosed();
    expect(old.text()).toContain("connection: close");
    expect(old.text()).toEndWith("\r\n\r\none two three");
  });

  test("when an answer declares a length its body does not have, then the connection is cut instead of ending it as whole", async () => {
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new Uint8Array(70_000));
        controller.enqueue(new Uint8Array(10));
        controller.close();
      },
    });
    const port = serve(() => new Response(body, { headers: { "content-length": "100000" } }));
    const client = connect(port);
    await client.write("GET /x HTTP/1.1\r\nHost: x\r\n\r\n");
    await client.untilClosed();
    expect(client.text()).toContain("content-length: 100000");
    expect(client.state.data.length).toBeLessThan(100_000);
  });

  test("when an answer's body fails while the server waits for a client that reads nothing, then the connection is cut then, while the client still reads nothing", async () => {
    let fail: (reason: Error) => void = () => {};
    const endless = new ReadableStream<Uint8Array>({
      start: (controller) => void (fail = (reason) => controller.error(reason)),
      pull: (controller) => controller.enqueue(new Uint8Array(1024 * 1024).fill(99)),
    });
    const port = serve(() => new Response(endless));
    const client = connect(port);
    client.socket.pause();
    await client.write("GET /endless HTTP/1.1\r\nHost: x\r\n\r\n");
    // Long enough for the sockets' buffers to fill and the server to wait for the client.
    await Bun.sleep(500);
    fail(new Error("gave way"));
    await Bun.sleep(100);
    // The client still reads nothing; writing to a connection the server has cut is what tells it so.
    await new Promise((resolve) => client.socket.write("GET /next HTTP/1.1\r\nHost: x\r\n\r\n", resolve));
    await Bun.sleep(100);
    expect(client.state.reset).toBe(true);
  });

  test("when a client that asked to close reads its answer more slowly than the linger time, or half-closes and reads slowly, then it still gets all of it", async () => {
    const answer = new Uint8Array(4 * 1024 * 1024).fill(100);
    const port = serve(() => new Response(answer, { headers: { "content-length": String(answer.length) } }), { lingerMs: 200 });
    for (const halfCloses of [false, true]) {
      const socket = createConnection({ port, host: "127.0.0.1", allowHalfOpen: true });
      let received = 0;
      let reset = false;
      socket.on("data", (piece: Buffer) => {
        received += piece.length;
        // About 4 MB/s: a second or more for the answer, five times the linger time.
        socket.pause();
        setTimeout(() => socket.resume(), piece.length / 4000);
      });
      socket.on("error", () => (reset = true));
      socket.on("end", () => socket.end());
      const closed = new Promise((resolve) => socket.on("close", resolve));
      socket.write(`GET /big HTTP/1.1\r\nHost: x\r\n${halfCloses ? "" : "Connection: close\r\n"}\r\n`);
      if (halfCloses) socket.end();
      await closed;
      expect({ halfCloses, reset, whole: received > answer.length }).toEqual({ halfCloses, reset: false, whole: true });
    }
  });

  test("when HTTP/1.0 is spoken, then the connection closes after the answer unless keep-alive was asked", async () => {
    const port = serve(echoPath);
    const closing = connect(port);
    await closing.write("GET /x HTTP/1.0\r\n\r\n");
    await closing.untilClosed();
    expect(closing.text()).toStartWith("HTTP/1.1 200 OK\r\n");
    const keeping = connect(port);
    await keeping.write("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    expect(await keeping.answers(2)).toEqual([200, 200]);
    expect(keeping.text()).toContain("connection: keep-alive");
    expect(keeping.state.closed).toBe(false);
    keeping.close();
  });

  test("when a head is malformed, then the answer is the JSON error object and the connection closes", async () => {
    const port = serve(echoPath);
    const bareLineBreaks = ["GET / HTTP/1.1\nHost: x\n\n", "GET / HTTP/1.1\r\nHost: x\n\r\n", "GET / HTTP/1.1\rHost: x\r\r"];
    for (const bad of ["GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", "GET / HTTP/1.1\r\n\r\n", "GET /\x01 HTTP/1.1\r\nHost: x\r\n\r\n", ...bareLineBreaks]) {
      const client = connect(port);
      await client.write(bad);
      // A head of bare line breaks never ends in CRLF CRLF: it is answered at once, not at the head timeout.
      await client.untilClosed(1000);
      expect({ bad, status: client.text().slice(0, 12) }).toEqual({ bad, status: "HTTP/1.1 400" });
      expect(client.text()).toContain("connection: close");
      expect(client.text()).toContain("content-type: application/json");
      expect(JSON.parse(client.text().split("\r\n\r\n")[1]!).error.code).toBe("bad_request");
    }
  });

  test("when the method is one fetch would turn into another (unknown, lowercase), then it is 400 with the error object, never served as GET", async () => {
    let served = 0;
    const port = serve((request) => {
      served++;
      return echoPath(request);
    });
    for (const method of ["BREW", "get", "C_7"]) {
      const client = connect(port);
      await client.write(`${method} /x HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(await client.answers(1)).toEqual([400]);
      expect(JSON.parse(client.text().split("\r\n\r\n")[1]!).error.code).toBe("bad_request");
      client.close();
    }
    expect(served).toBe(0);
  });

  test("when a head is larger than the parser takes, then the answer is 431 with the error object", async () => {
    const port = serve(echoPath, undefined, 4096);
    const client = connect(port);
    await client.write(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(5000)}\r\n\r\n`);
    await client.untilClosed();
    expect(client.text().slice(0, 12)).toBe("HTTP/1.1 431");
    expect(JSON.parse(client.text().split("\r\n\r\n")[1]!).error.code).toBe("request_header_fields_too_large");
  });

  test("when a head grows past the server's limit, then it is answered 431 at once, without waiting for its end", async () => {
    const port = serve(echoPath);
    const client = connect(port);
    // No blank line ever comes: the server must not hold more than its limit of this head.
    await client.write(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(SERVER_MAX_HEAD_BYTES)}`);
    await client.untilClosed();
    expect(client.text().slice(0, 12)).toBe("HTTP/1.1 431");
    expect(JSON.parse(client.text().split("\r\n\r\n")[1]!).error.code).toBe("request_header_fields_too_large");
  });

  test("when incomplete heads over every connection pass the server's budget, then the heads held longest give way with 503, the newer head is served once it ends, and whole requests still pass", async () => {
    const port = serve(echoPath, undefined, undefined, 10_000);
    // Heads kept from ending fill the budget...
    const stuck = [];
    // Each from an address of its own: this is about the room in all, not one address's share.
    for (let i = 0; i < 4; i++) {
      const client = connect(port, `127.0.1.${i + 1}`);
      await client.write(`GET /stuck${i} HTTP/1.1\r\nHost: x\r\nX-Pad: ${"a".repeat(2000)}`);
      stuck.push(client);
      await Bun.sleep(20);
    }
    // ...and a head arriving in two pieces needs room for its first: the two oldest stuck heads give way.
    const late = connect(port, "127.0.1.9");
    await late.write(`GET /late HTTP/1.1\r\nHost: x\r\nX-Pad: ${"b".repeat(4000)}`);
    for (const client of stuck.slice(0, 2)) {
      await client.untilClosed();
      expect(client.text().slice(0, 12)).toBe("HTTP/1.1 503");
      expect(client.text()).toContain("retry-after: 1");
      expect(JSON.parse(client.text().split("\r\n\r\n")[1]!).error.code).toBe("service_unavailable");
    }
    await Bun.sleep(50);
    for (const client of stuck.slice(2)) expect(client.state.closed).toBe(false);
    await late.write("\r\n\r\n");
    expect(await late.answers(1)).toEqual([200]);
    // A request that arrives whole is never held, so it is served however full the budget is.
    const whole = connect(port);
    await whole.write(`GET /whole HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(await whole.answers(1)).toEqual([200]);
    // A stuck head that was not refused is still served when it ends.
    await stuck[3]!.write("\r\n\r\n");
    expect(await stuck[3]!.answers(1)).toEqual([200]);
    for (const client of [...stuck, late, whole]) client.close();
  });

  test("when more connections are open than the server keeps, then idle ones that never asked anything give way first, oldest first, then the oldest idle one that did", async () => {
    const port = serve(echoPath, undefined, undefined, undefined, 3);
    const used = connect(port);
    await used.write(`GET /used HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(await used.answers(1)).toEqual([200]);
    const unused = [connect(port), connect(port)];
    await Bun.sleep(50);
    const late = connect(port);
    await late.write(`GET /late HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(await late.answers(1)).toEqual([200]);
    await unused[0]!.untilClosed();
    expect([used.state.closed, unused[0]!.state.closed, unused[1]!.state.closed]).toEqual([false, true, false]);
    const later = connect(port);
    await later.write(`GET /later HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(await later.answers(1)).toEqual([200]);
    await unused[1]!.untilClosed();
    expect(used.state.closed).toBe(false);
    // None left that never asked: the oldest that did goes, closed after its answers (not cut).
    const last = connect(port);
    await last.write(`GET /last HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(await last.answers(1)).toEqual([200]);
    await used.untilClosed();
    expect(used.state.closed).toBe(true);
    expect(used.state.reset).toBe(false);
    for (const client of [...unused, late, later, last]) client.close();
  });

  test("when connections run out while a client reads its answer slowly, then that answer is not cut: the client gets all of it before its connection closes", async () => {
    // Small enough to sit whole in the sockets' buffers: the server has nothing left to write.
    const answer = new Uint8Array(1024 * 1024).fill(97);
    const port = serve(() => new Response(answer, { headers: { "content-type": "application/octet-stream" } }), undefined, undefined, undefined, 2);
    const slow = connect(port);
    slow.socket.pause();
    await slow.write(`GET /big HTTP/1.1\r\nHost: x\r\n\r\n`);
    await Bun.sleep(200);
    // Two newcomers: the slow reader's connection, idle on the server's side and the oldest, is the one to go.
    const others = [];
    for (let index = 0; index < 2; index++) {
      const client = connect(port);
      await client.write(`GET /other${index} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(await client.answers(1)).toEqual([200]);
      others.push(client);
    }
    slow.socket.resume();
    await slow.untilClosed();
    expect(slow.state.reset).toBe(false);
    // The whole answer, to its last chunk.
    expect(slow.text().endsWith("a\r\n0\r\n\r\n")).toBe(true);
    let rest = slow.text().slice(slow.text().indexOf("\r\n\r\n") + 4);
    let received = 0;
    for (let size = parseInt(rest, 16); size > 0; size = parseInt(rest, 16)) {
      rest = rest.slice(rest.indexOf("\r\n") + 2);
      received += rest.slice(0, size).split("a").length - 1;
      rest = rest.slice(size + 2);
    }
    expect(received).toBe(answer.length);
    for (const client of others) client.close();
  });

  test("when every connection's client has taken nothing of its answer for a while, then the one stalled longest gives way to a new connection, whether it was to close after that answer or not", async () => {
    // Endless answers: they stall once the sockets' buffers are full.
    const port = serve(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull: (controller) => controller.enqueue(new Uint8Array(1024 * 1024).fill(98)),
          }),
        ),
      undefined,
      undefined,
      undefined,
      2,
    );
    // One keeps its connection, one asked to close it after the answer: a client that reads nothing gives way either way.
    const stalled = [connect(port), connect(port)];
    for (const [index, client] of stalled.entries()) {
      client.socket.pause();
      await client.write(`GET /endless HTTP/1.1\r\nHost: x\r\n${index === 0 ? "Connection: close\r\n" : ""}\r\n`);
    }
    await Bun.sleep(1500);
    const late = connect(port);
    await late.write(`GET /late HTTP/1.1\r\nHost: x\r\n\r\n`);
    await late.untilText("HTTP/1.1 200");
    expect(late.text().slice(0, 12)).toBe("HTTP/1.1 200");
    const later = connect(port);
    await later.write(`GET /later HTTP/1.1\r\nHost: x\r\n\r\n`);
    await later.untilText("HTTP/1.1 200");
    expect(later.text().slice(0, 12)).toBe("HTTP/1.1 200");
    for (const client of [...stalled, late, later]) client.close();
  });

  test("when every connection the server keeps is serving a request, then a new one is answered 503 with Retry-After and closed, and the requests in progress finish", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const port = serve(async (request) => {
      await held;
      return echoPath(request);
    }, undefined, undefined, undefined, 2);
    const busy = [connect(port), connect(port)];
    for (const [index, client] of busy.entries()) await client.write(`GET /busy${index} HTTP/1.1\r\nHost: x\r\n\r\n`);
    await Bun.sleep(50);
    const refused = connect(port);
    await refused.untilClosed();
    expect(refused.text().slice(0, 12)).toBe("HTTP/1.1 503");
    expect(refused.text()).toContain("retry-after: 1");
    expect(JSON.parse(refused.text().split("\r\n\r\n")[1]!).error.code).toBe("service_unavailable");
    release();
    for (const client of busy) expect(await client.answers(1)).toEqual([200]);
    for (const client of [...busy, refused]) client.close();
  });

  test("when clients keep their connections open after their last answers, then newcomers, theirs or another client's, close the oldest of those at once and are served", async () => {
    const port = serve(echoPath, undefined, undefined, undefined, 8);
    const lingering = [];
    // Four clients, each within its share of 2: answered and closed on the server's side, kept open on theirs, so each lingers.
    for (const from of ["127.0.4.2", "127.0.4.3", "127.0.4.4", "127.0.4.5"]) {
      for (let i = 0; i < 2; i++) {
        const client = connect(port, from, true);
        await client.write(`GET /flood HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        expect(await client.answers(1)).toEqual([200]);
        lingering.push(client);
      }
    }
    const other = connect(port, "127.0.4.1");
    await other.write(`GET /other HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(await other.answers(1)).toEqual([200]);
    const own = connect(port, "127.0.4.2");
    await own.write(`GET /own HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(await own.answers(1)).toEqual([200]);
    // A byte sent on a connection the server has closed comes back as a reset: the two oldest were closed.
    for (const client of lingering) {
      client.socket.write("x");
      await client.untilClosed(300);
    }
    expect(lingering.map((client) => client.state.closed)).toEqual([true, true, false, false, false, false, false, false]);
    for (const client of [...lingering, other, own]) client.close();
  });

  test("when a client holding more than its share of the connections opens another, then it makes room from its own only: another client's idle connections stay open", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const port = serve(async (request) => {
      if (new URL(request.url).pathname.startsWith("/hold")) await held;
      return echoPath(request);
    }, undefined, undefined, undefined, 4);
    const answered = connect(port, "127.0.5.1");
    await answered.write(`GET /first HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(await answered.answers(1)).toEqual([200]);
    const unused = connect(port, "127.0.5.1");
    await Bun.sleep(50);
    const busy = [connect(port, "127.0.5.2"), connect(port, "127.0.5.2")];
    for (const [index, client] of busy.entries()) await client.write(`GET /hold${index} HTTP/1.1\r\nHost: x\r\n\r\n`);
    await Bun.sleep(50);
    // Past the cap, and past its share of a quarter: none of the other client's connections give way.
    const refused = connect(port, "127.0.5.2");
    await refused.untilClosed();
    expect(refused.text().slice(0, 12)).toBe("HTTP/1.1 503");
    expect([answered.state.closed, unused.state.closed]).toEqual([false, false]);
    await answered.write(`GET /second HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(await answered.answers(2)).toEqual([200, 200]);
    await unused.write(`GET /third HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(await unused.answers(1)).toEqual([200]);
    release();
    for (const client of busy) expect(await client.answers(1)).toEqual([200]);
    for (const client of [answered, unused, ...busy, refused]) client.close();
  });

  test("when the oldest incomplete head of an address grows past that address's share, then that head is refused 503 and the newer one keeps its room", async () => {
    const port = serve(echoPath, undefined, undefined, 10_000);
    const oldest = connect(port, "127.0.2.1");
    await oldest.write(`GET /oldest HTTP/1.1\r\nHost: x\r\nX-Pad: ${"a".repeat(1000)}`);
    await Bun.sleep(50);
    const newer = connect(port, "127.0.2.1");
    await newer.write(`GET /newer HTTP/1.1\r\nHost: x\r\nX-Pad: ${"b".repeat(1000)}`);
    await Bun.sleep(50);
    // The address's share is a quarter of 10,000 bytes: the oldest head's next piece does not fit.
    await oldest.write("c".repeat(1000));
    await oldest.untilClosed();
    expect(oldest.text().slice(0, 12)).toBe("HTTP/1.1 503");
    await newer.write("\r\n\r\n");
    expect(await newer.answers(1)).toEqual([200]);
    for (const client of [oldest, newer]) client.close();
  });

  test("when a head and the request after it arrive a few bytes at a time, their end split between pieces, then both are read whole and answered in order", async () => {
    const bodies: string[] = [];
    const port = serve(async (request) => {
      bodies.push(await request.text());
      return echoPath(request);
    });
    const client = connect(port);
    client.socket.setNoDelay(true);
    const stream = `POST /first HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nX-Pad: ${"p".repeat(3000)}\r\n\r\nhello` + `GET /second HTTP/1.1\r\nHost: x\r\n\r\n`;
    for (let at = 0; at < stream.length; at += 3) {
      await client.write(stream.slice(at, at + 3));
      if (at % 300 === 0) await Bun.sleep(1);
    }
    expect(await client.answers(2)).toEqual([200, 200]);
    expect(client.text()).toContain("/first");
    expect(client.text()).toContain("/second");
    expect(bodies).toEqual(["hello", ""]);
    client.close();
  });

  test("when one client address sends heads that never end, faster than others finish theirs, then only its own oldest heads give way and other addresses' heads in pieces are served", async () => {
    const port = serve(echoPath, undefined, undefined, 16_000);
    const patient = connect(port, "127.0.3.1");
    await patient.write(`GET /patient HTTP/1.1\r\nHost: x\r\n`);
    const flood = [];
    // Ten times its share of 4,000 bytes: without the share, these would have taken the whole room many times over.
    for (let i = 0; i < 40; i++) {
      const client = connect(port, "127.0.3.2");
      await client.write(`GET /flood${i} HTTP/1.1\r\nHost: x\r\nX-Pad: ${"a".repeat(900)}`);
      flood.push(client);
    }
    await flood[0]!.untilClosed();
    expect(flood[0]!.text().slice(0, 12)).toBe("HTTP/1.1 503");
    await patient.write("X-Last: piece\r\n\r\n");
    expect(await patient.answers(1)).toEqual([200]);
    for (const client of [patient, ...flood]) client.close();
  });

  test("when a client pipelines requests and reads none of the answers, then the server stops taking its requests and cuts it after the idle time", async () => {
    let served = 0;
    const answer = new Uint8Array(256 * 1024).fill(120);
    const port = serve(
      () => {
        served++;
        return new Response(answer, { headers: { "content-type": "application/octet-stream" } });
      },
      { idleMs: 400 },
    );
    const client = connect(port);
    client.socket.pause();
    const sent = 400;
    await client.write("GET /x HTTP/1.1\r\nHost: x\r\n\r\n".repeat(sent));
    await Bun.sleep(300);
    // What the sockets' buffers hold of the answers, a few megabytes, and nothing more: the rest of the requests wait unread.
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThan(sent / 4);
    const servedWhileStuck = served;
    await Bun.sleep(600);
    expect(served).toBe(servedWhileStuck);
    client.socket.resume();
    await client.untilClosed();
    expect(client.state.closed).toBe(true);
    expect(served).toBeLessThan(sent);
  });

  test("when the handler throws, then the answer is a 500 with the error object and the connection stays usable", async () => {
    const port = serve((request) => {
      if (new URL(request.url).pathname === "/boom") throw new Error("boom");
      return echoPath(request);
    });
    const client = connect(port);
    await client.write("GET /boom HTTP/1.1\r\nHost: x\r\n\r\nGET /fine HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await client.answers(2)).toEqual([500, 200]);
    client.close();
  });

  test("when a head trickles in slower than its timeout, or a connection sits idle past its timeout, then it is closed", async () => {
    const port = serve(echoPath, { headMs: 200, idleMs: 300 });
    const slow = connect(port);
    await slow.write("GET / HTTP/1.1\r\n");
    const idle = connect(port);
    await idle.write("GET /x HTTP/1.1\r\nHost: x\r\n\r\n");
    await Promise.all([slow.untilClosed(2000), idle.untilClosed(2000)]);
    expect(slow.state.closed).toBe(true);
    expect(idle.state.closed).toBe(true);
    expect(idle.text()).toEndWith("/x");
  });

  test("when the rest of a body left unread by an early answer trickles in slower than the linger time, then the connection is cut", async () => {
    const port = serve(() => new Response("no", { status: 429 }), { lingerMs: 200 });
    const client = connect(port);
    await client.write("PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc");
    expect(await client.answers(1)).toEqual([429]);
    const trickle = setInterval(() => client.socket.write("x"), 50);
    await client.untilClosed(3000);
    clearInterval(trickle);
    expect(client.state.closed).toBe(true);
  });

  test("when the server drains, then an answer in progress is finished with connection: close, and idle connections close", async () => {
    let release = () => {};
    const server = listenHttp1({
      port: 0,
      hostname: "127.0.0.1",
      handler: handlerOf(async (request) => {
        if (new URL(request.url).pathname === "/slow") await new Promise<void>((resolve) => (release = resolve));
        return echoPath(request);
      }),
    });
    servers.push(server);
    const idle = connect(server.port);
    await idle.write("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    await idle.answers(1);
    const busy = connect(server.port);
    await busy.write("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const drained = server.drain();
    await idle.untilClosed();
    expect(idle.state.closed).toBe(true);
    release();
    await drained;
    expect(busy.text()).toContain("connection: close");
    expect(busy.text()).toEndWith("/slow");
  });
});

describe("what an incoming handler is handed", () => {
  test("when the method is a plain one and the target a path, then it gets the parsed request, its URL serialized as fetch would", async () => {
    const seen: { fetchRequest: boolean; url: string; key: string | null }[] = [];
    const server = listenHttp1({
      port: 0,
      hostname: "127.0.0.1",
      handler: {
        incoming: (request) => {
          seen.push({ fetchRequest: request instanceof Request, url: request.url, key: request.headers.get("x-api-key") });
          return new Response("ok");
        },
      },
    });
    servers.push(server);
    const client = connect(server.port);
    await client.write("GET /v1/../healthz/./x?q=1 HTTP/1.1\r\nHost: gateway:8080\r\nX-API-Key: a\r\nx-api-key: b\r\n\r\n");
    await client.write("GET http://gateway:8080/v1/new-page HTTP/1.1\r\nHost: gateway:8080\r\n\r\n");
    expect(await client.answers(2)).toEqual([200, 200]);
    client.close();
    expect(seen).toEqual([
      { fetchRequest: false, url: "http://gateway:8080/healthz/x?q=1", key: "a, b" },
      // A target in absolute form is one a fetch Request reads for itself.
      { fetchRequest: true, url: "http://gateway:8080/v1/new-page", key: null },
    ]);
  });
});

describe("what a plain answer looks like on the wire", () => {
  test("when a handler answers with a plain answer, then its fields and whole body go out with their length, and HEAD and 204 carry no body", async () => {
    const body = new TextEncoder().encode('{"id":"1"}');
    const server = listenHttp1({
      port: 0,
      hostname: "127.0.0.1",
      handler: {
        incoming: (request) => {
          const path = new URL(request.url).pathname;
          if (path === "/none") return new PlainAnswer(204, [["x-request-id", "r2"]], null);
          const answer = new PlainAnswer(200, [["content-type", "application/json"], ["x-request-id", "stale"]], body);
          answer.headers.set("x-request-id", "r1");
          return answer;
        },
      },
    });
    servers.push(server);
    const client = connect(server.port);
    await client.write("GET /page HTTP/1.1\r\nHost: h\r\n\r\nHEAD /page HTTP/1.1\r\nHost: h\r\n\r\nGET /none HTTP/1.1\r\nHost: h\r\n\r\n");
    expect(await client.answers(3)).toEqual([200, 200, 204]);
    client.close();
    const [get, head, none] = client.text().split(/(?=HTTP\/1\.1 )/);
    expect(get).toStartWith("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-request-id: r1\r\n");
    expect(get).toContain(`content-length: ${body.byteLength}\r\n`);
    expect(get).toEndWith('\r\n\r\n{"id":"1"}');
    expect(head).toContain(`content-length: ${body.byteLength}\r\n`);
    expect(head).toEndWith("\r\n\r\n");
    expect(none).toContain("x-request-id: r2\r\n");
    expect(none).not.toContain("content-length");
    expect(none).toEndWith("\r\n\r\n");
  });
});

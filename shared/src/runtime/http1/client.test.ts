import { connect, type Socket } from "node:net";
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { dialBun } from "../bun";
import { PromiseSocketWire, type PromiseSocket } from "../promise-socket-wire";
import type { UpstreamAnswer, UpstreamRequest } from "../upstream";
import { AnswerLost } from "./client-connection";
import { Http1Client, type Dial } from "./client";

interface Received {
  head: string;
  body: Buffer;
}

interface UpstreamSocket {
  write(data: string | Uint8Array): number;
  end(): void;
  pause(): void;
  resume(): void;
  data: { buffer: Buffer; requests: number };
}

/**
 * A service that speaks raw HTTP/1.1 over Bun.listen, so a test can answer in
 * ways Bun.serve never would: `answer` gets each whole request (its head, its
 * body by Content-Length or chunked) and the request's number on its connection.
 */
function rawUpstream(answer: (socket: UpstreamSocket, request: Received, index: number) => void, options: { paused?: boolean } = {}) {
  const state = { connections: 0, closed: 0, requests: [] as Received[], sockets: [] as UpstreamSocket[] };
  const listener = Bun.listen<{ buffer: Buffer; requests: number }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { buffer: Buffer.alloc(0), requests: 0 };
        state.connections++;
        state.sockets.push(socket as unknown as UpstreamSocket);
        // Reading nothing from the first byte on, as a busy service would, whatever the machine's speed.
        if (options.paused) socket.pause();
      },
      close() {
        state.closed++;
      },
      data(socket, chunk) {
        socket.data.buffer = Buffer.concat([socket.data.buffer, chunk]);
        for (;;) {
          const buffer = socket.data.buffer;
          const end = buffer.indexOf("\r\n\r\n");
          if (end === -1) return;
          const head = buffer.toString("latin1", 0, end);
          const length = /content-length: (\d+)/i.exec(head);
          let body: Buffer;
          let rest: Buffer;
          if (length) {
            if (buffer.length < end + 4 + Number(length[1])) return;
            body = buffer.subarray(end + 4, end + 4 + Number(length[1]));
            rest = buffer.subarray(end + 4 + Number(length[1]));
          } else if (/transfer-encoding: chunked/i.test(head)) {
            const last = buffer.indexOf("\r\n0\r\n\r\n", end + 2);
            if (last === -1) return;
            body = decodeChunked(buffer.subarray(end + 4, last + 7));
            rest = buffer.subarray(last + 7);
          } else {
            body = Buffer.alloc(0);
            rest = buffer.subarray(end + 4);
          }
          socket.data.buffer = rest;
          const request = { head, body };
          state.requests.push(request);
          answer(socket as unknown as UpstreamSocket, request, socket.data.requests++);
        }
      },
    },
  });
  stops.push(() => listener.stop(true));
  return { origin: `http://127.0.0.1:${listener.port}`, state };
}

function decodeChunked(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf("\r\n", at);
    const size = parseInt(bytes.toString("latin1", at, lineEnd), 16);
    if (size === 0) return Buffer.concat(parts);
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

const ok = (body: string, extra = "") => `HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

const stops: (() => void)[] = [];
const clients: Http1Client[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
  for (const stop of stops.splice(0)) stop();
});

/** A node:net socket behind promises, as Deno's TCP connection is: Deno's wire, run here on Bun. */
function promiseSocket(socket: Socket): PromiseSocket {
  const chunks: Buffer[] = [];
  let ended = false;
  let failed: unknown;
  let waiting: (() => void) | undefined;
  const wake = () => {
    const waiter = waiting;
    waiting = undefined;
    waiter?.();
  };
  socket.on("data", (chunk: Buffer) => {
    chunks.push(chunk);
    // Read from the kernel no further ahead than a few chunks, as a socket read only when asked is.
    if (chunks.length > 4) socket.pause();
    wake();
  });
  for (const event of ["end", "close"]) socket.on(event, () => ((ended = true), wake()));
  socket.on("error", (error) => ((failed = error), wake()));
  return {
    async read(into) {
      while (chunks.length === 0 && !ended && failed === undefined) await new Promise<void>((resolve) => (waiting = resolve));
      const chunk = chunks[0];
      if (chunk === undefined) {
        if (failed !== undefined) throw failed;
        return null;
      }
      const read = Math.min(chunk.length, into.length);
      into.set(chunk.subarray(0, read));
      if (read === chunk.length) chunks.shift();
      else chunks[0] = chunk.subarray(read);
      if (chunks.length <= 4) socket.resume();
      return read;
    },
    write: (data) => new Promise((resolve, reject) => socket.write(data, (error) => (error ? reject(error) : resolve(data.byteLength)))),
    close: () => socket.destroy(),
  };
}

const dialPromises: Dial = (hostname, port, events) =>
  new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port, noDelay: true });
    socket.once("error", reject);
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve(new PromiseSocketWire(promiseSocket(socket), events));
    });
  });

/** The client runs over Bun's sockets, and over sockets of promises as on Deno: every test runs over both. */
const DIALS: [string, Dial][] = [
  ["Bun's sockets", dialBun],
  ["sockets of promises (Deno's kind)", dialPromises],
];
let dial: Dial = dialBun;

function client(options?: ConstructorParameters<typeof Http1Client>[1]): Http1Client {
  const made = new Http1Client(dial, options);
  clients.push(made);
  return made;
}

function request(origin: string, overrides: Partial<UpstreamRequest> = {}): UpstreamRequest {
  return { origin, method: "GET", pathAndQuery: "/thing?x=1", headers: [["accept", "text/plain"]], body: null, deadline: performance.now() + 2000, ...overrides };
}

async function text(answer: UpstreamAnswer): Promise<string> {
  return new Response(answer.body).text();
}

for (const [over, dialOf] of DIALS) describe(`the HTTP/1.1 client to the services, over ${over}`, () => {
  beforeAll(() => {
    dial = dialOf;
  });

  test("when requests follow one another, then they go over one kept-alive connection, with Host, the headers given and a length for a body", async () => {
    const upstream = rawUpstream((socket) => socket.write(ok("fine", "set-cookie: a=1\r\nset-cookie: b=2\r\nconnection: keep-alive\r\n")));
    const http = client();
    const first = await http.send(request(upstream.origin));
    expect(first.status).toBe(200);
    expect(first.body).toBeInstanceOf(Uint8Array);
    expect(await text(first)).toBe("fine");
    // Set-Cookie stays two fields; the hop's own headers are not handed on.
    expect(first.headers).toEqual([["content-type", "text/plain"], ["set-cookie", "a=1"], ["set-cookie", "b=2"]]);
    await http.send(request(upstream.origin, { method: "PUT", body: new TextEncoder().encode("data") }));
    expect(upstream.state.connections).toBe(1);
    const [get, put] = upstream.state.requests;
    expect(get!.head).toStartWith("GET /thing?x=1 HTTP/1.1\r\n");
    expect(get!.head).toContain(`host: ${upstream.origin.slice("http://".length)}\r\naccept: text/plain`);
    expect(put!.head).toContain("content-length: 4");
    expect(put!.body.toString()).toBe("data");
  });

  test("when the service closes a kept-alive connection instead of answering, then a GET is sent once more on a new connection; a POST, PUT or DELETE is not (it may have run)", async () => {
    // Each connection answers its first request and closes on the next, as a service closing an idle connection would.
    const upstream = rawUpstream((socket, _request, index) => (index === 0 ? socket.write(ok("first")) : socket.end()));
    const http = client();
    await http.send(request(upstream.origin));
    const again = await http.send(request(upstream.origin));
    expect(await text(again)).toBe("first");
    expect(upstream.state.connections).toBe(2);

    for (const method of ["POST", "PUT", "DELETE"]) {
      const connections = upstream.state.connections;
      // A fresh connection answers its first request: the next one is the lost one.
      await http.send(request(upstream.origin));
      const lost = await http.send(request(upstream.origin, { method, body: method === "DELETE" ? null : new TextEncoder().encode("{}") })).catch((error) => error);
      expect(lost).toBeInstanceOf(AnswerLost);
      expect(upstream.state.connections).toBe(connections + 1);
    }
  });

  test("when the connection closes before any of the request was written, then the request goes on a new connection, whatever its method", async () => {
    const upstream = rawUpstream((socket) => socket.write(ok("made")));
    let dials = 0;
    // The first connection closes between being made and being written to, as one its service closes at that moment would.
    const closingFirst: Dial = async (hostname, port, events) => {
      const wire = await dial(hostname, port, events);
      if (++dials === 1) events.onClose();
      return wire;
    };
    const http = new Http1Client(closingFirst);
    clients.push(http);
    const answer = await http.send(request(upstream.origin, { method: "POST", body: new TextEncoder().encode("{}") }));
    expect(await text(answer)).toBe("made");
    expect(dials).toBe(2);
    expect(upstream.state.requests).toHaveLength(1);
  });

  test("when a GET on a new connection gets no answer, then it is not sent again", async () => {
    const upstream = rawUpstream((socket) => socket.end());
    const lost = await client().send(request(upstream.origin)).catch((error) => error);
    expect(lost).toBeInstanceOf(AnswerLost);
    expect(upstream.state.requests).toHaveLength(1);
  });

  test("when the answer is chunked, then its body is streamed, decoded, and the connection is used again", async () => {
    const upstream = rawUpstream((socket) => socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\ntrailer: x\r\n\r\n"));
    const http = client();
    const answer = await http.send(request(upstream.origin));
    expect(answer.body).toBeInstanceOf(ReadableStream);
    expect(await text(answer)).toBe("hello world");
    expect(await text(await http.send(request(upstream.origin)))).toBe("hello world");
    expect(upstream.state.connections).toBe(1);
  });

  test("when interim answers come first, then they are passed over; HEAD, 204 and 304 answers have no body", async () => {
    const upstream = rawUpstream((socket, received) => {
      if (received.head.startsWith("HEAD")) return socket.write("HTTP/1.1 200 OK\r\ncontent-length: 1234\r\n\r\n");
      if (received.head.includes("/empty")) return socket.write("HTTP/1.1 204 No Content\r\n\r\n");
      // A 304's length is the representation's, not a body's.
      if (received.head.includes("/unchanged")) return socket.write("HTTP/1.1 304 Not Modified\r\ncontent-length: 50\r\n\r\n");
      socket.write(`HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n${ok("after")}`);
    });
    const http = client();
    expect(await text(await http.send(request(upstream.origin)))).toBe("after");
    const head = await http.send(request(upstream.origin, { method: "HEAD" }));
    expect(head.body).toBeNull();
    const empty = await http.send(request(upstream.origin, { pathAndQuery: "/empty" }));
    expect([empty.status, empty.body]).toEqual([204, null]);
    const unchanged = await http.send(request(upstream.origin, { pathAndQuery: "/unchanged" }));
    expect([unchanged.status, unchanged.body]).toEqual([304, null]);
    expect(upstream.state.connections).toBe(1);
  });

  test("when the answer says connection: close, then the next request opens a new connection", async () => {
    const upstream = rawUpstream((socket) => socket.write(ok("bye", "connection: close\r\n")));
    const http = client();
    await http.send(request(upstream.origin));
    await http.send(request(upstream.origin));
    expect(upstream.state.connections).toBe(2);
  });

  test("when the answer is longer than 64 KiB, then it is streamed, and the service's socket waits while nobody reads", async () => {
    const total = 32 * 1024 * 1024;
    const block = Buffer.alloc(256 * 1024, 97);
    const sent = { bytes: 0 };
    const upstream = rawUpstream((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${total}\r\n\r\n`);
      const pump = () => {
        while (sent.bytes < total) {
          const written = socket.write(block.subarray(0, Math.min(block.length, total - sent.bytes)));
          sent.bytes += Math.max(0, written);
          if (written < block.length) return setTimeout(pump, 5);
        }
      };
      pump();
    });
    const answer = await client().send(request(upstream.origin));
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await Bun.sleep(300);
    // What the kernel buffers on both sides and 64 KiB here, far from the whole.
    expect(sent.bytes).toBeLessThan(total / 2);
    let received = 0;
    for (let next = await reader.read(); !next.done; next = await reader.read()) received += next.value.byteLength;
    expect(sent.bytes).toBe(total);
    expect(received).toBeGreaterThan(total - 300 * 1024);
  });

  test("when no connection can be made, then the error carries ECONNREFUSED", async () => {
    const upstream = rawUpstream(() => {});
    stops.splice(0).forEach((stop) => stop());
    const error = await client().send(request(upstream.origin)).catch((caught) => caught);
    expect(error.code).toBe("ECONNREFUSED");
  });

  test("when the service does not answer by the deadline, then it fails with a TimeoutError and the connection is not used again", async () => {
    const upstream = rawUpstream((socket, received) => {
      if (!received.head.includes("/slow")) socket.write(ok("quick"));
    });
    const http = client();
    const error = await http.send(request(upstream.origin, { pathAndQuery: "/slow", deadline: performance.now() + 100 })).catch((caught) => caught);
    expect(error.name).toBe("TimeoutError");
    expect(await text(await http.send(request(upstream.origin)))).toBe("quick");
    expect(upstream.state.connections).toBe(2);
  });

  test("when the service sends nothing more of a streamed answer, for as long as it had to answer, while it is read, then its body fails with a TimeoutError", async () => {
    const upstream = rawUpstream((socket) => socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${1024 * 1024}\r\n\r\n${"a".repeat(100 * 1024)}`));
    const answer = await client().send(request(upstream.origin, { deadline: performance.now() + 200 }));
    const startedAt = performance.now();
    const error = await new Response(answer.body).bytes().catch((caught) => caught);
    expect(error.name).toBe("TimeoutError");
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(150);
  });

  test("when the service goes away half-way through the answer, then the answer is lost, not cut", async () => {
    const upstream = rawUpstream((socket) => {
      socket.write("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly part");
      socket.end();
    });
    const error = await client().send(request(upstream.origin)).catch((caught) => caught);
    expect(error).toBeInstanceOf(AnswerLost);
    expect(error.beforeAnswer).toBe(false);
  });

  test("when the answer is not HTTP, or could be framed two ways, then it is lost", async () => {
    const answers = ["SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n", "HTTP/1.1 200 OK\r\ncontent-length: 2, 3\r\n\r\nab", "HTTP/1.1 200 OK\r\nbad header\r\n\r\n"];
    for (const raw of answers) {
      const upstream = rawUpstream((socket) => socket.write(raw));
      const error = await client().send(request(upstream.origin)).catch((caught) => caught);
      expect(error).toBeInstanceOf(AnswerLost);
    }
  });

  test("when the service reads the request body slowly, then the body is read from its source only as fast as it goes out", async () => {
    const chunk = new Uint8Array(64 * 1024).fill(98);
    const chunks = 256;
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled++ === chunks) return controller.close();
        controller.enqueue(chunk);
      },
    });
    const upstream = rawUpstream((socket, received) => socket.write(ok(String(received.body.length))), { paused: true });
    const http = client();
    // The service reads nothing for a while: what is pulled is what the sockets' buffers hold, far less than the body.
    // (The deadline leaves the 16 MiB time to go once it reads, on a machine busy with other work too.)
    const sending = http.send(request(upstream.origin, { method: "POST", body, deadline: performance.now() + 10_000 }));
    await Bun.sleep(300);
    const pulledWhilePaused = pulled;
    expect(pulledWhilePaused).toBeLessThan(chunks);
    for (const socket of upstream.state.sockets) socket.resume();
    const answer = await sending;
    expect(await text(answer)).toBe(String(chunks * chunk.length));
  });

  test("when the request body fails half-way, then the request fails with that error and its connection is closed, not used again", async () => {
    const upstream = rawUpstream(() => {});
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(10));
        setTimeout(() => controller.error(new Error("the client went away")), 50);
      },
    });
    const error = await client().send(request(upstream.origin, { method: "POST", body })).catch((caught) => caught);
    expect(error.message).toBe("the client went away");
    await Bun.sleep(50);
    expect(upstream.state.closed).toBe(1);
    // What came of the body is not taken as a request whole.
    expect(upstream.state.requests).toHaveLength(0);
  });

  test("when a connection has been idle past its time, then it is closed and the next request opens a new one", async () => {
    const upstream = rawUpstream((socket) => socket.write(ok("fine")));
    const http = client({ idleMs: 100 });
    await http.send(request(upstream.origin));
    await Bun.sleep(250);
    await http.send(request(upstream.origin));
    expect(upstream.state.connections).toBe(2);
  });

  test("when more requests come at once than the connections allowed, then the rest wait for a free one", async () => {
    const upstream = rawUpstream((socket) => setTimeout(() => socket.write(ok("fine")), 20));
    const http = client({ maxConnections: 2 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => http.send(request(upstream.origin))));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(upstream.state.connections).toBe(2);
  });
});

import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { ApiError } from "../errors/api-error";
import type { FetchHandler, RunningServer } from "./runtime";

type ChunkRead = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;

export interface NodeHttpOptions {
  port: number;
  hostname: string;
  fetch: FetchHandler;
  /** What the HTTP parser accepts before a request reaches `fetch`. */
  maxHeaderBytes: number;
}

const WITHOUT_BODY = new Set(["GET", "HEAD"]);

const PLAIN_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$/;

/**
 * The request target as a URL: origin form (`/path?query`) as it comes, with the
 * Host when it is a plain one; the absolute form as given; anything else (`*`,
 * an authority) relative to the root, as Deno does. Null when it is none of these.
 */
function targetUrl(request: IncomingMessage): string | null {
  const target = request.url ?? "/";
  const host = request.headers.host;
  const origin = host !== undefined && PLAIN_HOST.test(host) ? `http://${host}` : "http://localhost";
  if (target.startsWith("/") && !target.startsWith("//")) return origin + target;
  return (URL.parse(target, origin) ?? URL.parse(target, "http://localhost"))?.href ?? null;
}

function hasBody(request: IncomingMessage): boolean {
  if (WITHOUT_BODY.has(request.method ?? "GET")) return false;
  const length = request.headers["content-length"];
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * The body as a web stream that reads from the socket only when it is pulled:
 * an upload nobody reads stays in the kernel's buffers (backpressure), and one
 * the handler answered without reading is drained by node:http afterwards.
 */
function bodyStream(incoming: IncomingMessage): ReadableStream<Uint8Array> {
  let listening = false;
  let settled = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (!listening && incoming.destroyed) {
          // The client hung up before the handler read the body: its socket is gone, so no event will come,
          // but a body that arrived whole is still buffered and is the request's, as if it had stayed.
          settled = listening = true;
          if (!incoming.complete) return controller.error(new Error("the client went away"));
          for (let chunk: Buffer | null = incoming.read(); chunk !== null; chunk = incoming.read()) {
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          }
          return controller.close();
        }
        if (!listening) {
          listening = true;
          const finish = (error?: Error) => {
            if (settled) return;
            settled = true;
            if (error) controller.error(error);
            else controller.close();
          };
          incoming.on("data", (chunk: Buffer) => {
            if (settled) return;
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
          });
          incoming.once("end", () => finish());
          incoming.once("error", (error) => finish(error));
          incoming.once("close", () => finish(incoming.complete ? undefined : new Error("the client went away")));
        }
        incoming.resume();
      },
      cancel() {
        settled = true;
        incoming.resume();
      },
    },
    // Nothing is read before the handler asks: a Request does not pull on its own.
    { highWaterMark: 0 },
  );
}

function toRequest(incoming: IncomingMessage, url: string): Request {
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const body = hasBody(incoming) ? bodyStream(incoming) : null;
  return new Request(url, { method: incoming.method, headers, body, duplex: "half" } as RequestInit);
}

function headerList(response: Response, closing: boolean, contentLength?: number): string[] {
  const list: string[] = [];
  response.headers.forEach((value, name) => {
    if (name !== "content-length" && name !== "connection") list.push(name, value);
  });
  if (contentLength !== undefined) list.push("content-length", String(contentLength));
  if (closing) list.push("connection", "close");
  return list;
}

/** Resolves once the socket can take more, or has gone. */
function writable(outgoing: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      outgoing.off("drain", done);
      outgoing.off("close", done);
      resolve();
    };
    outgoing.once("drain", done);
    outgoing.once("close", done);
  });
}

/** A body of a declared length up to this is read whole in one step and sent in one write. */
const WHOLE_BODY_MAX_BYTES = 64 * 1024;

/**
 * Writes a fetch Response. A body of a small declared length (a service's JSON
 * answer) or that is one chunk (the gateway's own answers) goes out with a
 * Content-Length in a single write; a longer one is streamed at the pace the
 * client reads it.
 */
async function send(response: Response, outgoing: ServerResponse, closing: boolean): Promise<void> {
  if (!response.body) {
    outgoing.writeHead(response.status, headerList(response, closing, response.status === 204 || response.status === 304 ? undefined : 0));
    outgoing.end();
    return;
  }
  const declaredLength = Number(response.headers.get("content-length") ?? Infinity);
  if (declaredLength <= WHOLE_BODY_MAX_BYTES) {
    let body: Uint8Array;
    try {
      body = await response.bytes();
    } catch {
      outgoing.destroy();
      return;
    }
    outgoing.writeHead(response.status, headerList(response, closing, body.byteLength));
    outgoing.end(body);
    return;
  }
  const reader = response.body.getReader();
  outgoing.once("close", () => reader.cancel().catch(() => {}));
  try {
    const first = await reader.read();
    const second = first.done ? first : await reader.read();
    if (second.done) {
      const body = first.value ?? new Uint8Array(0);
      outgoing.writeHead(response.status, headerList(response, closing, body.byteLength));
      outgoing.end(body);
      return;
    }
    outgoing.writeHead(response.status, headerList(response, closing));
    outgoing.write(first.value);
    let next: ChunkRead = second;
    while (!next.done && !outgoing.destroyed) {
      if (!outgoing.write(next.value)) await writable(outgoing);
      next = await reader.read();
    }
    outgoing.end();
  } catch {
    // The body failed half-way (its source went away): the client must not take a cut body as whole.
    outgoing.destroy();
  }
}

/** A parser error answered with the error object, so even a malformed request gets JSON. */
function parserErrorResponse(error: Error & { code?: string }): Response {
  if (error.code === "HPE_HEADER_OVERFLOW") {
    return new ApiError("request_header_fields_too_large", "The request headers are too large.").toResponse(crypto.randomUUID());
  }
  return ApiError.badRequest("The request is not valid HTTP/1.1.").toResponse(crypto.randomUUID());
}

/** Writes a whole response onto a raw socket and closes it (parser errors and CONNECT leave no ServerResponse). */
async function sendOnSocket(socket: Socket, response: Response): Promise<void> {
  const body = new Uint8Array(await response.arrayBuffer());
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? "Unknown"}`];
  const headers = headerList(response, true, body.byteLength);
  for (let i = 0; i < headers.length; i += 2) lines.push(`${headers[i]}: ${headers[i + 1]}`);
  if (!socket.writable) return;
  socket.end(Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), body]));
}

/**
 * Serves a fetch handler with node:http. On Bun this replaces Bun.serve, whose
 * HTTP/1.1 server (Bun 1.4) closes a connection with no bytes written when a
 * second pipelined request arrives while the first one's handler is still
 * running (the first request has run, so a retrying client repeats it), and
 * loses a response sent before the request body was read (413, 429, 503). Bun's
 * node:http answers pipelined requests in order, drains unread bodies, applies
 * backpressure to uploads, and reports parser errors so that they too get JSON.
 */
export function serveNodeHttp(options: NodeHttpOptions): Promise<RunningServer> {
  let draining = false;

  /** The handler's answer; a target that is no URL is refused here, as the handler could not be given it. */
  async function answer(incoming: IncomingMessage, clientAddress: string | undefined): Promise<Response> {
    const url = targetUrl(incoming);
    let request: Request | undefined;
    try {
      if (url) request = toRequest(incoming, url);
    } catch {
      request = undefined;
    }
    if (!request) return ApiError.badRequest("The request target is not a valid path.").toResponse(crypto.randomUUID());
    try {
      return await options.fetch(request, clientAddress);
    } catch {
      return new ApiError("internal_error", "Something went wrong on our side.").toResponse(crypto.randomUUID());
    }
  }
  const server = createServer({ maxHeaderSize: options.maxHeaderBytes, keepAliveTimeout: 60_000 } as Parameters<typeof createServer>[0]);

  // node:http hands over a pipelined request before the one ahead of it is answered. A request
  // must see what the one before it did (a GET after a POST), so a connection's requests run in turn.
  const previousOnSocket = new WeakMap<Socket, Promise<void>>();
  server.on("request", (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const socket = incoming.socket;
    const turn = (previousOnSocket.get(socket) ?? Promise.resolve()).then(() =>
      handle(incoming, outgoing).catch(() => {
        // Nothing can be sent any more (the response broke half-way): the connection goes, its requests with it.
        socket.destroy();
      }),
    );
    previousOnSocket.set(socket, turn);
  });

  async function handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const response = await answer(incoming, incoming.socket.remoteAddress);
    await send(response, outgoing, draining);
    // Answered before the body was read (413, 429, 503, 404): the rest is read and dropped, so the
    // client gets to read the answer and the connection's next request is parsed, not stuck behind it.
    if (!incoming.complete) {
      incoming.removeAllListeners("data");
      incoming.resume();
    }
  }

  // node:http hands CONNECT to a listener of its own; it gets the same answer as any method the route does not allow.
  server.on("connect", async (incoming: IncomingMessage, socket: Socket) => {
    socket.on("error", () => {});
    await sendOnSocket(socket, await answer(incoming, socket.remoteAddress)).catch(() => socket.destroy());
  });

  server.on("clientError", (error: Error, socket: Socket) => {
    socket.on("error", () => {});
    sendOnSocket(socket, parserErrorResponse(error)).catch(() => socket.destroy());
  });

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      const address = server.address();
      resolve({
        port: typeof address === "object" && address ? address.port : options.port,
        drain: () =>
          new Promise<void>((done) => {
            draining = true;
            server.close(() => done());
            server.closeIdleConnections();
          }),
        kill: async () => {
          server.closeAllConnections();
        },
      });
    });
  });
}

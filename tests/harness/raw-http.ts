import { createConnection, type Socket } from "node:net";

/** One HTTP/1.1 response as it came over a raw socket. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, or undefined. */
  body: any;
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads as many complete responses as `data` holds, in order. Bodies are framed
 * by Content-Length or chunked encoding; a response with neither runs to the
 * end of the data (the server closes such a connection).
 */
export function parseResponses(data: Buffer, closed: boolean, head = false): { responses: RawResponse[]; rest: Buffer } {
  const responses: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const headEnd = data.indexOf("\r\n\r\n", at);
    if (headEnd < 0) break;
    const lines = data.subarray(at, headEnd).toString("latin1").split("\r\n");
    const status = Number(lines[0]!.split(" ")[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let body: Buffer;
    let next: number;
    const start = headEnd + 4;
    if (head || status === 204 || status === 304 || (status >= 100 && status < 200)) {
      body = Buffer.alloc(0);
      next = start;
    } else if (headers["content-length"] !== undefined) {
      const length = Number(headers["content-length"]);
      if (data.length < start + length) break;
      body = data.subarray(start, start + length);
      next = start + length;
    } else if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
      const parts: Buffer[] = [];
      let cursor = start;
      let complete = false;
      for (;;) {
        const lineEnd = data.indexOf("\r\n", cursor);
        if (lineEnd < 0) break;
        const size = parseInt(data.subarray(cursor, lineEnd).toString("latin1"), 16);
        if (size === 0) {
          if (data.length < lineEnd + 4) break;
          cursor = lineEnd + 4;
          complete = true;
          break;
        }
        if (data.length < lineEnd + 2 + size + 2) break;
        parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
        cursor = lineEnd + 2 + size + 2;
      }
      if (!complete) break;
      body = Buffer.concat(parts);
      next = cursor;
    } else {
      if (!closed) break;
      body = data.subarray(start);
      next = data.length;
    }
    if (status >= 100 && status < 200) {
      at = next;
      continue;
    }
    const text = body.toString("utf8");
    responses.push({ status, headers, text, body: parseJson(text) });
    at = next;
  }
  return { responses, rest: data.subarray(at) };
}

/** A raw connection: write any bytes, read the responses as they come. */
export interface RawConnection {
  socket: Socket;
  write(bytes: string | Buffer): Promise<void>;
  /** Resolves once `count` responses have arrived (or the connection has closed: fewer then). */
  responses(count: number, timeoutMs?: number): Promise<RawResponse[]>;
  closed: Promise<void>;
  close(): void;
}

/** `head`: the responses answer HEAD requests, so they carry no body whatever their headers say. */
export function rawConnection(port: number, head = false): RawConnection {
  const socket = createConnection({ port, host: "127.0.0.1" });
  let data = Buffer.alloc(0);
  let isClosed = false;
  let waiters: (() => void)[] = [];
  const wake = () => {
    const current = waiters;
    waiters = [];
    for (const waiter of current) waiter();
  };
  socket.on("data", (chunk: Buffer) => {
    data = Buffer.concat([data, chunk]);
    wake();
  });
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) =>
    socket.on("close", () => {
      isClosed = true;
      wake();
      resolve();
    }),
  );
  return {
    socket,
    write: (bytes) =>
      new Promise((resolve) => {
        if (socket.destroyed) return resolve();
        socket.write(bytes, () => resolve());
      }),
    async responses(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { responses } = parseResponses(data, isClosed, head);
        if (responses.length >= count || isClosed) return responses;
        const left = deadline - Date.now();
        if (left <= 0) return responses;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    closed,
    close: () => socket.destroy(),
  };
}

/** Sends bytes on a fresh connection and reads `count` responses (default: until the server closes). */
export async function rawExchange(port: number, bytes: string | Buffer, count = Number.POSITIVE_INFINITY, timeoutMs = 15_000, head = false): Promise<RawResponse[]> {
  const connection = rawConnection(port, head);
  try {
    await connection.write(bytes);
    return await connection.responses(count, timeoutMs);
  } finally {
    connection.close();
  }
}

export const portOf = (url: string) => Number(new URL(url).port);

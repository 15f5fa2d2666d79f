import { SENT_AGAIN_METHODS, UPSTREAM_IDLE_MS, upstreamTimeout, type UpstreamAnswer, type UpstreamRequest } from "../upstream";
import { AnswerLost, ClientConnection, type ClientWire, type SocketEvents } from "./client-connection";
import { HopDeadline } from "./hop-deadline";

/** Opens a TCP connection whose events go to `events`; rejects with the socket's error (its code, ECONNREFUSED…) when none could be made. */
export type Dial = (hostname: string, port: number, events: SocketEvents) => Promise<ClientWire>;

export interface Http1ClientOptions {
  /**
   * An idle connection is closed after this: well under the services' own
   * idle timeout (60 s), so a connection taken from the pool is rarely one
   * its service is closing at that moment.
   */
  idleMs: number;
  /** Connections to one service at once; requests past it wait for one to be free. */
  maxConnections: number;
}

const DEFAULT_OPTIONS: Http1ClientOptions = { idleMs: UPSTREAM_IDLE_MS, maxConnections: 256 };

/**
 * An HTTP/1.1 client for the gateway → service hop, over the runtime's TCP
 * sockets (cheaper than a fetch run on another thread): a keep-alive pool per
 * service. A request whose connection closed before any of it was written is
 * sent on a new connection, whatever its method; one that finds its reused
 * connection closed before any byte of the answer came is sent once more only
 * when its method is safe (GET, HEAD, OPTIONS: nothing to repeat), its body
 * still in hand.
 */
export class Http1Client {
  private readonly pools = new Map<string, OriginPool>();
  private readonly options: Http1ClientOptions;
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly dial: Dial,
    options: Partial<Http1ClientOptions> = {},
  ) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
  }

  send = async (request: UpstreamRequest): Promise<UpstreamAnswer> => {
    const pool = this.poolOf(request.origin);
    const deadline = new HopDeadline(request.deadline);
    let connection: ClientConnection | undefined;
    try {
      connection = await pool.acquire(deadline);
      return await connection.send(request, deadline);
    } catch (error) {
      const repeatable = SENT_AGAIN_METHODS.has(request.method) && !(request.body instanceof ReadableStream);
      const sendAgain = error instanceof AnswerLost && (error.notSent || (error.beforeAnswer && connection!.uses > 1 && repeatable));
      if (!sendAgain) {
        deadline.end();
        throw error;
      }
    }
    try {
      return await (await pool.connect(deadline)).send(request, deadline);
    } catch (error) {
      deadline.end();
      throw error;
    }
  };

  /** Closes every connection (a test's end, a process's). */
  close(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    for (const pool of this.pools.values()) pool.closeIdle(Infinity);
    this.pools.clear();
  }

  private poolOf(origin: string): OriginPool {
    let pool = this.pools.get(origin);
    if (pool === undefined) {
      pool = new OriginPool(new URL(origin), this.dial, this.options.maxConnections);
      this.pools.set(origin, pool);
      this.sweeper ??= this.startSweeper();
    }
    return pool;
  }

  /** One sweep for every idle connection instead of a timer each. */
  private startSweeper(): ReturnType<typeof setInterval> {
    const sweeper = setInterval(() => {
      for (const pool of this.pools.values()) pool.closeIdle(this.options.idleMs);
    }, Math.max(10, this.options.idleMs / 4));
    (sweeper as { unref?: () => void }).unref?.();
    return sweeper;
  }
}

interface Waiter {
  resolve: (connection: ClientConnection) => void;
  reject: (error: unknown) => void;
  deadline: HopDeadline;
}

/** The connections to one service: idle ones (the most recently used first), and requests waiting for one. */
class OriginPool {
  private readonly idle: ClientConnection[] = [];
  private readonly waiting: Waiter[] = [];
  /** Open or opening. */
  private readonly connections = new Set<ClientConnection>();
  private readonly hostname: string;
  private readonly port: number;
  private readonly host: string;

  constructor(
    url: URL,
    private readonly dial: Dial,
    private readonly maxConnections: number,
  ) {
    // An IPv6 literal comes bracketed in a URL; a socket takes it bare.
    this.hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
    this.port = Number(url.port || 80);
    this.host = url.host;
  }

  acquire(deadline: HopDeadline): Promise<ClientConnection> {
    const idle = this.idle.pop();
    if (idle !== undefined) return Promise.resolve(idle);
    if (this.connections.size < this.maxConnections) return this.connect(deadline);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, deadline };
      deadline.during(() => {
        const at = this.waiting.indexOf(waiter);
        if (at !== -1) this.waiting.splice(at, 1);
        reject(upstreamTimeout());
      });
      this.waiting.push(waiter);
    });
  }

  /** A new connection, whatever the pool holds. */
  connect(deadline: HopDeadline): Promise<ClientConnection> {
    if (deadline.expired) return Promise.reject(upstreamTimeout());
    const connection = new ClientConnection(this.host, (freed) => this.freed(freed));
    this.connections.add(connection);
    return new Promise((resolve, reject) => {
      deadline.during(() => reject(upstreamTimeout()));
      this.dial(this.hostname, this.port, connection).then(
        (wire) => {
          connection.attach(wire);
          // Made too late: nobody waits for it.
          if (deadline.expired) connection.destroy();
          else resolve(connection);
        },
        (error) => {
          this.gone(connection);
          reject(error);
        },
      );
    });
  }

  closeIdle(idleMs: number): void {
    const now = Date.now();
    // The oldest are first: the most recently used are taken from the end.
    while (this.idle.length > 0 && now - this.idle[0]!.idleSince >= idleMs) this.idle.shift()!.destroy();
  }

  /** A connection is free for the next request, or has closed. */
  private freed(connection: ClientConnection): void {
    if (connection.closed) return this.gone(connection);
    const waiter = this.waiting.shift();
    if (waiter === undefined) return void this.idle.push(connection);
    waiter.resolve(connection);
  }

  /** A connection closed (or could not be made): a request waiting for one gets a new one. */
  private gone(connection: ClientConnection): void {
    if (!this.connections.delete(connection)) return;
    const at = this.idle.indexOf(connection);
    if (at !== -1) this.idle.splice(at, 1);
    const waiter = this.waiting.shift();
    if (waiter === undefined) return;
    this.connect(waiter.deadline).then(waiter.resolve, waiter.reject);
  }
}

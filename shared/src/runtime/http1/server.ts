import { readFileSync } from "node:fs";
import { Http1Connection, type Wire } from "./connection";
import { UnfinishedHeads } from "./unfinished-heads";
import type { RequestHandler } from "../runtime";

export interface Http1Timeouts {
  /** A request head must arrive whole within this from its first byte (slow-header clients). */
  headMs: number;
  /** A connection with no request in progress is closed after this; so is one whose client has taken none of an answer for this long. */
  idleMs: number;
  /** After an answer, input is read and dropped for at most this: what follows the answer that closes a connection, or the rest of a body it did not wait for. */
  lingerMs: number;
}

export const DEFAULT_TIMEOUTS: Http1Timeouts = { headMs: 30_000, idleMs: 60_000, lingerMs: 5_000 };

export interface Http1ServerOptions {
  handler: RequestHandler;
  maxHeaderBytes: number;
  timeouts?: Partial<Http1Timeouts>;
  /** Bytes of incomplete request heads held at once over every connection (default UNFINISHED_HEADS_MAX_BYTES). */
  unfinishedHeadsMaxBytes?: number;
  /** Connections open at once (default defaultMaxConnections()). */
  maxConnections?: number;
}

/** Of the connections a listener keeps, what one client (clientUnit) holds before it makes room from its own only. */
const CLIENT_SHARE = 1 / 4;

/** The oldest connections looked through for one to give way, when connections run out. */
const SCAN_MOST = 256;

/** How long a client may take nothing of an answer before its connection gives way to a new one, when connections run out. */
const STALLED_GIVES_WAY_MS = 1000;

/** File descriptors left for the process's own connections (to the services, PostgreSQL, Redis) and files. */
const OWN_DESCRIPTORS = 1024;
const MOST_CONNECTIONS = 16_384;

/**
 * Each connection takes a file descriptor, and a process without one left can
 * no longer reach its database or services: clients opening connections and
 * sending nothing would take them all. So one listener keeps at most half of
 * the open-files limit after OWN_DESCRIPTORS (a process has two listeners: the
 * API and the management port), 16,384 at most, 64 at least.
 */
export function defaultMaxConnections(): number {
  let limit = Number.POSITIVE_INFINITY;
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"));
    if (line) limit = Number(line[1]);
  } catch {
    // Not Linux: only the fixed ceiling applies.
  }
  return Math.max(64, Math.min(MOST_CONNECTIONS, Math.floor((limit - OWN_DESCRIPTORS) / 2)));
}

/**
 * Incomplete heads are held until they end (or their time runs out): without a
 * bound over every connection, many connections each sending most of a head
 * and never its end would hold connections × maxHeaderBytes. How that room is
 * shared: unfinished-heads.ts.
 */
export const UNFINISHED_HEADS_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The connections of one listener, whatever the runtime's socket API: their
 * timeouts (one sweep for all, not a timer each), draining and closing.
 */
export class Http1Server {
  private readonly connections = new Set<Http1Connection>();
  private readonly timeouts: Http1Timeouts;
  private readonly sweeper: ReturnType<typeof setInterval>;
  private draining = false;
  private drained: (() => void) | undefined;
  private readonly unfinishedHeads: UnfinishedHeads;
  private readonly maxConnections: number;
  /** Each client's connections (by clientUnit), oldest first. */
  private readonly byClient = new Map<string, Set<Http1Connection>>();
  private readonly clientShare: number;
  /** Connections past the cap while refusals finish (each closes once its 503 is written); past it a newcomer is cut. */
  private readonly slack: number;
  /** Connections whose answer is out that only read and drop input (the rest of a body, or what follows their last answer), by when they began. */
  private readonly lingering = new Set<Http1Connection>();
  /** Connections that have not sent a byte, oldest first. */
  private readonly quiet = new Set<Http1Connection>();

  constructor(private readonly options: Http1ServerOptions) {
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.unfinishedHeads = new UnfinishedHeads(options.unfinishedHeadsMaxBytes ?? UNFINISHED_HEADS_MAX_BYTES);
    this.maxConnections = options.maxConnections ?? defaultMaxConnections();
    this.clientShare = Math.max(1, Math.floor(this.maxConnections * CLIENT_SHARE));
    this.slack = Math.max(16, Math.floor(this.maxConnections / 16));
    const every = Math.max(10, Math.min(1000, this.timeouts.headMs / 4, this.timeouts.idleMs / 4, this.timeouts.lingerMs / 4));
    this.sweeper = setInterval(() => this.sweep(), every);
    (this.sweeper as { unref?: () => void }).unref?.();
  }

  open(wire: Wire): Http1Connection {
    const connection: Http1Connection = new Http1Connection(wire, {
      handler: this.options.handler,
      maxHeaderBytes: this.options.maxHeaderBytes,
      isDraining: () => this.draining,
      holdHead: (bytes): boolean => this.unfinishedHeads.hold(connection, bytes),
      lingering: (on) => (on ? this.lingering.add(connection) : this.lingering.delete(connection)),
      spoke: () => this.quiet.delete(connection),
    });
    this.connections.add(connection);
    this.quiet.add(connection);
    this.count(connection);
    if (this.connections.size > this.maxConnections) this.makeRoom(connection);
    if (this.draining) connection.closeWhenIdle();
    return connection;
  }

  /**
   * One connection too many: room is made at once, so that connections (and
   * their file descriptors) stay within the cap whatever a client does. What
   * gives way, in order:
   * - the oldest connection whose answer is out and that only reads and drops
   *   input (the rest of a body left unread, or what follows its last
   *   answer): closed now (not cut: what the kernel still holds for its
   *   client goes on to it);
   * - the oldest connection that never sent a byte (cut: nothing of ours is
   *   lost);
   * - the oldest idle one that had an answer, closed now as above;
   * - the oldest incomplete head (503, then closed);
   * - the connection whose client has taken nothing of its answer the
   *   longest, past STALLED_GIVES_WAY_MS (cut), closing or not;
   * - else the newcomer is answered 503 and closed.
   * Requests being served and answers being read are never cut. Only the
   * oldest SCAN_MOST connections are looked through for an idle or stalled
   * one, so that a newcomer costs the same at any cap.
   *
   * A client (clientUnit) holding more than its share makes room from its own
   * connections only: however many it opens, it cannot push other clients'
   * connections out, while theirs push its lingering ones out. Behind a proxy
   * every client has the proxy's address, and the rules apply among them as
   * if the share did not exist. Past the cap and a little more (newcomers
   * arriving while refused ones linger), a newcomer is cut with nothing written.
   */
  private makeRoom(newcomer: Http1Connection): void {
    if (this.connections.size > this.maxConnections + this.slack) {
      this.forget(newcomer);
      return newcomer.terminate();
    }
    const client = newcomer.client;
    const own = this.byClient.get(client)!;
    const overShare = own.size > this.clientShare;
    const mine = overShare ? (connection: Http1Connection) => connection.client === client : () => true;
    const lingering = firstOf(this.lingering, mine);
    if (lingering) return this.closeNow(lingering);
    const quiet = firstOf(this.quiet, (connection) => connection !== newcomer && mine(connection) && connection.waitingForNothing);
    if (quiet) {
      this.forget(quiet);
      return quiet.terminate();
    }
    let answeredIdle: Http1Connection | undefined;
    let stalled: Http1Connection | undefined;
    let looked = 0;
    for (const connection of overShare ? own : this.connections) {
      if (++looked > SCAN_MOST) break;
      if (connection === newcomer) continue;
      const stalledSince = connection.stalledSince;
      if (stalledSince !== undefined) {
        if (stalled === undefined || stalledSince < stalled.stalledSince!) stalled = connection;
      } else if (!connection.closing && connection.hasAnswered && connection.waitingForNothing) {
        answeredIdle ??= connection;
      }
    }
    if (answeredIdle) return this.closeNow(answeredIdle);
    if (overShare ? this.unfinishedHeads.refuseOldestOf(client, newcomer) : this.unfinishedHeads.refuseOldestOfAll(newcomer)) return;
    if (stalled && Date.now() - stalled.stalledSince! > STALLED_GIVES_WAY_MS) {
      this.forget(stalled);
      return stalled.terminate();
    }
    newcomer.refuseConnection();
  }

  /** Closes a connection that has nothing left to do but linger or wait: its room is free at once. */
  private closeNow(connection: Http1Connection): void {
    this.forget(connection);
    connection.close();
  }

  private count(connection: Http1Connection): void {
    const client = connection.client;
    let connections = this.byClient.get(client);
    if (connections === undefined) this.byClient.set(client, (connections = new Set()));
    connections.add(connection);
  }

  /** No longer counted: it is closed, or being cut. */
  private forget(connection: Http1Connection): void {
    if (!this.connections.delete(connection)) return;
    this.lingering.delete(connection);
    this.quiet.delete(connection);
    const client = connection.client;
    const connections = this.byClient.get(client)!;
    connections.delete(connection);
    if (connections.size === 0) this.byClient.delete(client);
  }

  closed(connection: Http1Connection): void {
    connection.onClose();
    this.forget(connection);
    if (this.draining && this.connections.size === 0) this.drained?.();
  }

  /** Resolves once every connection has closed: idle ones now, busy ones after their current answer. */
  drain(): Promise<void> {
    this.draining = true;
    const done = new Promise<void>((resolve) => (this.drained = resolve));
    for (const connection of this.connections) connection.closeWhenIdle();
    if (this.connections.size === 0) this.drained!();
    return done.finally(() => clearInterval(this.sweeper));
  }

  stop(): void {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const now = Date.now();
    for (const connection of this.connections) {
      const dropping = connection.endedAt ?? connection.droppingSince;
      const stalled = connection.stalledSince;
      if (stalled !== undefined && now - stalled > this.timeouts.idleMs) {
        connection.terminate();
      } else if (dropping !== undefined) {
        // Reading and dropping input ends; the answer, whole in the kernel's buffers, still reaches a slow reader.
        if (now - dropping > this.timeouts.lingerMs) connection.close();
      } else if (connection.headStartedAt !== undefined && now - connection.headStartedAt > this.timeouts.headMs) {
        connection.terminate();
      } else if (connection.idle && now - connection.lastActivity > this.timeouts.idleMs) {
        connection.closeWhenIdle();
      }
    }
  }
}

/** The first of `items` that is wanted, among the first SCAN_MOST. */
function firstOf<T>(items: Iterable<T>, wanted: (item: T) => boolean): T | undefined {
  let looked = 0;
  for (const item of items) {
    if (wanted(item)) return item;
    if (++looked >= SCAN_MOST) return undefined;
  }
  return undefined;
}

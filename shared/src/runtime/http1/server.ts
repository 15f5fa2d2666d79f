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

  constructor(private readonly options: Http1ServerOptions) {
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.unfinishedHeads = new UnfinishedHeads(options.unfinishedHeadsMaxBytes ?? UNFINISHED_HEADS_MAX_BYTES);
    this.maxConnections = options.maxConnections ?? defaultMaxConnections();
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
    });
    this.connections.add(connection);
    if (this.connections.size > this.maxConnections) this.makeRoom(connection);
    if (this.draining) connection.closeWhenIdle();
    return connection;
  }

  /**
   * One connection too many: the oldest that is waiting for nothing (idle, or
   * done and lingering) is closed, else the oldest incomplete head is refused,
   * else the newcomer is refused (503). Those a client keeps open and unused
   * go first, not requests being served.
   */
  private makeRoom(newcomer: Http1Connection): void {
    for (const connection of this.connections) {
      if (connection === newcomer) continue;
      if (connection.endedAt !== undefined || (connection.idle && connection.stalledSince === undefined && connection.headStartedAt === undefined)) {
        this.connections.delete(connection);
        return connection.terminate();
      }
    }
    if (!this.unfinishedHeads.refuseOldestOfAll(newcomer)) newcomer.refuseConnection();
  }

  closed(connection: Http1Connection): void {
    connection.onClose();
    this.connections.delete(connection);
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
        if (now - dropping > this.timeouts.lingerMs) connection.terminate();
      } else if (connection.headStartedAt !== undefined && now - connection.headStartedAt > this.timeouts.headMs) {
        connection.terminate();
      } else if (connection.idle && now - connection.lastActivity > this.timeouts.idleMs) {
        connection.closeWhenIdle();
      }
    }
  }
}

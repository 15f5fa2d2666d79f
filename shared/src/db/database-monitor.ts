import type postgres from "postgres";
import type { Logger } from "../observability/logger";
import { databaseFailure } from "./database-errors";

const UP_INTERVAL_MS = 500;
const DOWN_INTERVAL_MS = 250;
const PROBE_TIMEOUT_MS = 2000;
const RETIRED_POOL_GRACE_SECONDS = 10;

export interface DatabaseHealth {
  /** False from the moment a probe cannot reach PostgreSQL until one reaches it again. */
  readonly up: boolean;
  /** For readiness: fails at once while PostgreSQL is down. */
  check(): Promise<void>;
}

/**
 * A pool whose callers never wait on an unreachable PostgreSQL, and which heals
 * by itself. A probe on a connection of its own asks PostgreSQL every half
 * second, and at once when a request connection closes. While it cannot reach
 * it, every query of the pool fails at once (a closed pool answers them, the
 * driver's "connection ended", which nothing ever ran) instead of waiting for
 * a connection. When a probe reaches it again
 * after an outage, or after its own connection was closed (PostgreSQL
 * restarted between two probes), the pool is replaced by a new one: whatever
 * state the old connections were left in (postgres.js 3.4.9 can leave a slot
 * that never sends again when its socket closes with a write pending, and backs
 * off up to 20 s between reconnects), the requests after it start on fresh
 * connections.
 */
export function healingPool(options: {
  /** Opens a request pool; `onclose` is told whenever one of its connections closes. */
  open: (onclose: () => void) => postgres.Sql;
  /** A pool that refuses every query at once. */
  refusing: postgres.Sql;
  /** Opens the probe's own one-connection pool; `onclose` is told when its connection closes. */
  probe: (onclose: () => void) => postgres.Sql;
  logger?: Logger;
}) {
  /**
   * A request connection of the current pool that closes may be the first sign
   * of an outage: probe at once rather than at the next tick. And the pool is
   * renewed once the probe answers, whatever the close was: a backend
   * terminated with a query of its connection pending can leave that
   * connection never writing again (the driver's bug above; it ends the socket
   * itself on the server's FATAL message, so the close looks like any other),
   * and a fault review saw that lane's requests wait out their whole budget,
   * one every 10 s, minutes after a storm of terminated backends. A close from
   * idleness costs a renewal too: the new pool connects as queries come.
   */
  const open = () => {
    const made: postgres.Sql = options.open(() => {
      if (made === current) connectionsLost = true;
      void probeNow();
    });
    return made;
  };
  let connectionsLost = false;
  let current = open();
  const openProbe = () => options.probe(() => (connectionsLost = true));
  let probe = openProbe();
  // The probe's own connection can be left never writing again too (terminated with its query pending):
  // a probe that failed, or got no answer, is made anew, so the next one cannot wait on a stuck connection.
  const renewProbe = () => {
    const old = probe;
    probe = openProbe();
    connectionsLost = true;
    old.end({ timeout: 0 }).catch(() => {});
  };
  let up = true;
  let stopped = false;
  let probing = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const target = () => (up ? current : options.refusing);

  const pool = new Proxy((() => {}) as unknown as postgres.Sql, {
    apply: (_target, _this, args) => Reflect.apply(target() as unknown as (...args: unknown[]) => unknown, undefined, args),
    get: (_target, property) => Reflect.get(target(), property),
  });

  const markDown = (error: unknown) => {
    if (!up) return;
    up = false;
    options.logger?.error("database unreachable: requests fail at once until it answers", { error: String(error) });
  };
  const markUp = () => {
    if (up && !connectionsLost) return;
    const old = current;
    current = open();
    connectionsLost = false;
    // Past any request's budget: what still runs on the old pool finishes there.
    old.end({ timeout: RETIRED_POOL_GRACE_SECONDS }).catch(() => {});
    if (!up) options.logger?.info("database reachable again: connection pool renewed");
    up = true;
  };

  async function probeOnce(): Promise<void> {
    probing = true;
    let timeout: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        probe`select 1`,
        new Promise((_, reject) => (timeout = setTimeout(() => reject(new Error("probe timed out")), PROBE_TIMEOUT_MS))),
      ]);
      markUp();
    } catch (error) {
      // A slow answer on a live connection is load, not an outage: only a failure to reach PostgreSQL counts.
      if (databaseFailure(error)) markDown(error);
      renewProbe();
    } finally {
      clearTimeout(timeout);
      probing = false;
    }
  }

  function probeNow(): Promise<void> | undefined {
    if (!stopped && !probing) return probeOnce();
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(async () => {
      if (!probing) await probeOnce();
      schedule();
    }, up ? UP_INTERVAL_MS : DOWN_INTERVAL_MS);
  }
  schedule();

  const health: DatabaseHealth = {
    get up() {
      return up;
    },
    async check() {
      if (!up) throw new Error("database unreachable");
      await current`select 1`;
    },
  };

  return {
    pool,
    health,
    /** Some request connection may be left unusable: the pool is renewed as soon as a probe reaches PostgreSQL. */
    connectionsLost() {
      connectionsLost = true;
      void probeNow();
    },
    async close() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all([current.end({ timeout: 5 }), probe.end({ timeout: 1 })]);
    },
  };
}

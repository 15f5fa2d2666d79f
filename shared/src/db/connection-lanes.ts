import type postgres from "postgres";

/** The driver's query object, as far as lanes need it: the function that sends it when it is first awaited. */
interface PendingQuery extends Promise<unknown> {
  handler: (query: PendingQuery) => void;
}

interface Lane {
  sql: postgres.Sql;
  /** Sends a query on this lane: the lane's own pool's handler. */
  send: (query: PendingQuery) => void;
  /** Queries and transactions sent on this lane and not yet settled. */
  running: number;
}

/**
 * How deep one connection's pipeline may go. Deep enough that queries share
 * writes and wake-ups on both ends (bench/README.md, section 3), shallow
 * enough that a query does not wait long behind the others on its connection.
 * One number for every place that decides a pipeline's depth: the requests a
 * service admits per connection, and how far a turn's queries may pack one
 * lane beyond the others.
 */
export const CONNECTION_PIPELINE_DEPTH = 8;

/**
 * A pool of `size` connections in which each connection is a one-connection
 * `postgres` pool of its own (a lane), and the queries sent in one turn of the
 * event loop go to the lane with the fewest queries running, where they
 * pipeline behind them.
 *
 * Why not the driver's own pool of `size`: postgres.js 3.4.9 keeps its busy
 * connections in a queue whose array only grows while more queries are running
 * than there are connections, and searches that array every time a connection
 * changes state, so under sustained load every query costs more than the last
 * (bench/README.md, section 3). A one-connection pool's queue holds at most
 * one connection and empties on every turn. Sending each turn's queries to the
 * least busy lane keeps what the driver's pool did right: a long query or a
 * transaction holds up only the lane it is on.
 *
 * The first query sent in a turn of the event loop takes the least busy lane;
 * the others sent in the same turn join it while it runs fewer than `maxLead`
 * queries more than the least busy one (by default CONNECTION_PIPELINE_DEPTH,
 * so that packing a turn never makes one lane's pipeline deeper than a
 * connection's may go, beyond the others'). The driver writes what a connection
 * was given in one turn in one write, so they cost one system call here and
 * one wake-up of the server's backend rather than one each (spread over the
 * lanes, every query was a write of its own: bench/README.md, "Queries of one
 * turn in one write"). The cost is that a query may wait behind one sent in
 * the same turn while another lane is idle: a point query's worth, or, behind
 * a slow query, what the lead allows, as it already could once every lane
 * had work.
 *
 * The lane is chosen when a query is sent (first awaited), not when it is
 * written: a fragment (`sql\`...\`` or `sql.unsafe` nested in another query) is
 * never sent and never counted. Every query is made by the first lane's `sql`
 * and sent by the chosen lane's handler: the lanes share one set of options, so
 * the query, its parameters and its result are the same whichever lane sends it.
 *
 * As with any pool, a transaction's statements go through its `tx`: a query
 * sent on the pool from inside a transaction may be given the transaction's
 * own lane and wait for it forever. Cursors and `query.cancel()` before a
 * query is sent are not used here and not supported (a cursor would stay
 * counted on its lane).
 */
export function connectionLanes(open: () => postgres.Sql, size: number, { maxLead = CONNECTION_PIPELINE_DEPTH }: { maxLead?: number } = {}): postgres.Sql {
  const lanes: Lane[] = Array.from({ length: Math.max(1, size) }, () => {
    const sql = open();
    // A query object that is never sent, read only for its lane's handler.
    const { handler } = sql.unsafe("") as unknown as PendingQuery;
    // The one part of the driver lanes rely on that it does not document: fail at start, not on a query, if it moves.
    if (typeof handler !== "function") throw new Error("connection lanes: this version of the postgres driver has no query handler to send with");
    return { sql, send: handler, running: 0 };
  });
  const maker = lanes[0]!.sql;

  const leastBusy = (): Lane => {
    let best = lanes[0]!;
    for (const lane of lanes) {
      if (lane.running < best.running) best = lane;
      if (best.running === 0) break;
    }
    return best;
  };

  /** The lane this turn's queries go to; forgotten when the turn ends. */
  let laneOfTurn: Lane | undefined;
  const endTurn = () => void (laneOfTurn = undefined);
  const laneForQuery = (): Lane => {
    const least = leastBusy();
    if (laneOfTurn !== undefined && laneOfTurn.running - least.running < maxLead) return laneOfTurn;
    // The driver writes a connection's queries of this turn in an immediate scheduled after this one: the turn ends before that write.
    if (laneOfTurn === undefined) setImmediate(endTurn);
    laneOfTurn = least;
    return least;
  };

  /** Counts the work on its lane until it settles, whichever way. */
  const occupy = (lane: Lane, work: Promise<unknown>) => {
    lane.running++;
    const settled = () => void lane.running--;
    Promise.prototype.then.call(work, settled, settled);
  };

  const dispatched = <Q>(made: Q): Q => {
    const query = made as unknown as PendingQuery;
    query.handler = (sent) => {
      const lane = laneForQuery();
      occupy(lane, sent);
      lane.send(sent);
    };
    return made;
  };

  function sql(first: unknown, ...rest: unknown[]) {
    const made = (maker as unknown as (...args: unknown[]) => unknown)(first, ...rest);
    return Array.isArray((first as TemplateStringsArray | undefined)?.raw) ? dispatched(made) : made;
  }

  const unsupported = (name: string) => () => {
    throw new Error(`sql.${name} is not available on connection lanes`);
  };
  const pool = Object.assign(sql, maker, {
    unsafe(...args: Parameters<postgres.Sql["unsafe"]>) {
      return dispatched(maker.unsafe(...args));
    },
    begin(...args: unknown[]) {
      const lane = leastBusy();
      // A transaction holds its lane until it ends: queries of the turn must not line up behind it.
      if (lane === laneOfTurn) laneOfTurn = undefined;
      const transaction = (lane.sql.begin as (...args: unknown[]) => Promise<unknown>)(...args);
      occupy(lane, transaction);
      return transaction;
    },
    async end(options?: { timeout?: number }) {
      await Promise.all(lanes.map((lane) => lane.sql.end(options)));
    },
    // Each would hold or address one lane's connection, which the lanes do not offer.
    reserve: unsupported("reserve"),
    listen: unsupported("listen"),
    subscribe: unsupported("subscribe"),
    file: unsupported("file"),
  });
  return pool as unknown as postgres.Sql;
}

import net from "node:net";

/** What the `postgres` driver hands a socket factory: its parsed connection options. */
interface DriverOptions {
  host: string[];
  port: number[];
  path?: string | false;
}

/** The driver reads these for TLS server names and error messages. */
type DriverSocket = net.Socket & { host?: string; port?: number };

/**
 * A socket factory for the `postgres` driver that remembers the sockets it
 * made, so the pool's open connections can be counted: the driver keeps its
 * own bookkeeping private. The driver writes its startup message at once;
 * a socket still connecting buffers it, as a connected one would. Hosts of a
 * multi-host URL are tried in turn, as the driver itself does.
 *
 * A socket counts until it is destroyed, which also happens when TLS wraps it
 * and the TLS socket closes: no listener is needed, so none can be removed.
 */
/**
 * The driver listens to a socket only after an `await` on the factory; a
 * socket that fails at once (no file descriptor left: a flood of client
 * connections can take them all) emits its error before that, which would be
 * thrown as uncaught and stop the process. And a close the driver sees before
 * its first write went out leaves that connection never writing again
 * (postgres 3.4.9 clears its write timer without forgetting it). So a new
 * socket's error and close are held back for two turns, by which time the
 * driver listens and has written, then emitted in order: the query fails, the
 * process lives on, and the pool is told, so that it is renewed once
 * connections can be made again.
 */
function holdEarlyFailure(socket: net.Socket, onEarlyError: () => void): void {
  const emit = socket.emit;
  const held: [event: string, args: unknown[]][] = [];
  socket.emit = function (this: net.Socket, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "error" || event === "close") {
      held.push([event, args]);
      return true;
    }
    return emit.call(this, event, ...args);
  } as net.Socket["emit"];
  setImmediate(() =>
    setImmediate(() => {
      socket.emit = emit;
      if (held.some(([event]) => event === "error")) onEarlyError();
      for (const [event, args] of held) emit.call(socket, event, ...args);
    }),
  );
}

/** `onEarlyError`: a socket failed before the driver listened (its connection may not recover by itself). */
export function countedSockets(onEarlyError: () => void = () => {}) {
  const sockets = new Set<DriverSocket>();
  let next = 0;
  const prune = () => {
    for (const socket of sockets) if (socket.destroyed) sockets.delete(socket);
  };
  return {
    create(options: DriverOptions): net.Socket {
      prune();
      let socket: DriverSocket;
      if (options.path) {
        socket = net.connect(options.path);
      } else {
        const index = next++ % options.port.length;
        socket = net.connect(options.port[index]!, options.host[index]!);
        socket.host = options.host[index];
        socket.port = options.port[index];
      }
      sockets.add(socket);
      holdEarlyFailure(socket, onEarlyError);
      return socket;
    },
    open(): number {
      prune();
      return sockets.size;
    },
  };
}

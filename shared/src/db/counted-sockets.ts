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
export function countedSockets() {
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
      return socket;
    },
    open(): number {
      prune();
      return sockets.size;
    },
  };
}

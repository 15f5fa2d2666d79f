import { describe, expect, test } from "bun:test";
import type { SocketEvents } from "./http1/client-connection";
import { PromiseSocketWire, type PromiseSocket } from "./promise-socket-wire";

/** A socket whose writes finish when the test says, and whose reads return what the test pushes. */
function heldSocket() {
  const written: Uint8Array[] = [];
  const pendingWrites: (() => void)[] = [];
  const reads: ((value: Uint8Array | null) => void)[] = [];
  let closes = 0;
  let writeCloses = 0;
  const socket: PromiseSocket = {
    write(data) {
      written.push(new Uint8Array(data));
      return new Promise((resolve) => pendingWrites.push(() => resolve(data.byteLength)));
    },
    read(into) {
      return new Promise((resolve) =>
        reads.push((value) => {
          if (value === null) return resolve(null);
          into.set(value);
          resolve(value.byteLength);
        }),
      );
    },
    close: () => void closes++,
    closeWrite: async () => void writeCloses++,
  };
  return {
    socket,
    written,
    finishWrites: async () => {
      while (pendingWrites.length > 0) {
        pendingWrites.shift()!();
        await Bun.sleep(0);
      }
    },
    /** The peer sends `data` (null: its FIN) to the read waiting now. */
    arrive: async (data: Uint8Array | null) => {
      while (reads.length === 0) await Bun.sleep(0);
      reads.shift()!(data);
      await Bun.sleep(0);
    },
    closes: () => closes,
    writeCloses: () => writeCloses,
  };
}

function recorder() {
  const seen = { data: [] as string[], drains: 0, closes: 0 };
  const events: SocketEvents = {
    onData: (chunk) => void seen.data.push(Buffer.from(chunk).toString()),
    onDrain: () => void seen.drains++,
    onClose: () => void seen.closes++,
  };
  return { seen, events };
}

describe("a promise socket as the HTTP/1.1 client's wire", () => {
  test("when the caller reuses its buffer right after a write that has to wait, then what goes out is what it wrote", async () => {
    const held = heldSocket();
    const wire = new PromiseSocketWire(held.socket, recorder().events);
    wire.write(Buffer.from("first"));
    // Taken while the first write is under way: it waits, and the caller's buffer is the next head's.
    const buffer = Buffer.from("GET / HTTP/1.1\r\n\r\n");
    expect(wire.write(buffer)).toBe(buffer.byteLength);
    buffer.fill(0x78);
    await held.finishWrites();
    expect(held.written.map((chunk) => Buffer.from(chunk).toString())).toEqual(["first", "GET / HTTP/1.1\r\n\r\n"]);
  });

  test("when more is written than it holds, then it takes only part, and says drain once all it took has gone out", async () => {
    const held = heldSocket();
    const { seen, events } = recorder();
    const wire = new PromiseSocketWire(held.socket, events);
    const big = new Uint8Array(300 * 1024);
    const taken = wire.write(big);
    expect(taken).toBeLessThan(big.byteLength);
    expect(wire.write(new Uint8Array(10))).toBe(0);
    await Bun.sleep(0);
    expect(seen.drains).toBe(0);
    await held.finishWrites();
    expect(seen.drains).toBe(1);
    expect(held.written.reduce((sum, chunk) => sum + chunk.byteLength, 0)).toBe(taken);
  });

  test("when writes come while one is under way, then they go out together in the next write, in order", async () => {
    const held = heldSocket();
    const wire = new PromiseSocketWire(held.socket, recorder().events);
    wire.write(Buffer.from("a"));
    wire.write(Buffer.from("b"));
    wire.write(Buffer.from("c"));
    await held.finishWrites();
    expect(held.written.map((chunk) => Buffer.from(chunk).toString())).toEqual(["a", "bc"]);
  });

  test("when the peer sends bytes and then its FIN, then each read is handed on as its own Buffer and the close is told once", async () => {
    const held = heldSocket();
    const { seen, events } = recorder();
    const wire = new PromiseSocketWire(held.socket, events);
    await held.arrive(Buffer.from("HTTP/1.1 200 OK\r\n"));
    await held.arrive(Buffer.from("content-length: 0\r\n\r\n"));
    await held.arrive(null);
    wire.terminate();
    expect(seen.data).toEqual(["HTTP/1.1 200 OK\r\n", "content-length: 0\r\n\r\n"]);
    expect(seen.closes).toBe(1);
    expect(held.closes()).toBe(1);
  });

  test("when it is paused, then nothing more is read until it is resumed", async () => {
    const held = heldSocket();
    const { seen, events } = recorder();
    const wire = new PromiseSocketWire(held.socket, events);
    await held.arrive(Buffer.from("one"));
    wire.pause();
    // The read already asked for still delivers; none is asked for after it.
    await held.arrive(Buffer.from("two"));
    await Bun.sleep(5);
    expect(seen.data).toEqual(["one", "two"]);
    let thirdAsked = false;
    void held.arrive(Buffer.from("three")).then(() => (thirdAsked = true));
    await Bun.sleep(5);
    expect(thirdAsked).toBe(false);
    wire.resume();
    await Bun.sleep(5);
    expect(thirdAsked).toBe(true);
    expect(seen.data).toEqual(["one", "two", "three"]);
  });
});

describe("a promise socket as the wire of a server's connection", () => {
  test("when the client sends its FIN, then the server hears the end and the wire stays open for the answers", async () => {
    const held = heldSocket();
    const { seen, events } = recorder();
    let ends = 0;
    const wire = new PromiseSocketWire(held.socket, { ...events, onEnd: () => void ends++ }, { remoteAddress: "203.0.113.7" });
    await held.arrive(Buffer.from("GET / HTTP/1.1\r\n\r\n"));
    await held.arrive(null);
    expect({ ends, closes: seen.closes }).toEqual({ ends: 1, closes: 0 });
    expect(wire.write(Buffer.from("HTTP/1.1 200 OK\r\n\r\n"))).toBe(19);
    await held.finishWrites();
    expect(held.written.map((chunk) => Buffer.from(chunk).toString())).toEqual(["HTTP/1.1 200 OK\r\n\r\n"]);
    expect(wire.remoteAddress).toBe("203.0.113.7");
  });

  test("when it is ended or half-closed with an answer still going out, then the socket is closed or half-closed only once the answer is out", async () => {
    for (const how of ["end", "shutdown"] as const) {
      const held = heldSocket();
      const { seen, events } = recorder();
      const wire = new PromiseSocketWire(held.socket, { ...events, onEnd: () => {} });
      wire.write(Buffer.from("answer"));
      wire[how]();
      await Bun.sleep(0);
      expect({ how, closes: held.closes(), writeCloses: held.writeCloses() }).toEqual({ how, closes: 0, writeCloses: 0 });
      await held.finishWrites();
      await Bun.sleep(0);
      expect({ how, closes: held.closes(), writeCloses: held.writeCloses(), told: seen.closes }).toEqual(
        how === "end" ? { how, closes: 1, writeCloses: 0, told: 1 } : { how, closes: 0, writeCloses: 1, told: 0 },
      );
    }
  });
});

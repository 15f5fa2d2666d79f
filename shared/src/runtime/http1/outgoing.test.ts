import { describe, expect, test } from "bun:test";
import { Outgoing } from "./outgoing";

/** A socket that takes at most `room` bytes until it is given more, and keeps a copy of what it took. */
function socket(room: number) {
  const taken: number[] = [];
  return {
    taken,
    room,
    write(data: Uint8Array): number {
      const n = Math.min(this.room, data.byteLength);
      for (let i = 0; i < n; i++) taken.push(data[i]!);
      this.room -= n;
      return n;
    },
    text: () => Buffer.from(taken).toString("latin1"),
  };
}

describe("a head written through the shared buffer", () => {
  test("goes out whole, body after it, as latin1 bytes", () => {
    const wire = socket(Number.POSITIVE_INFINITY);
    expect(new Outgoing(wire).writeHead("HTTP/1.1 200 OK\r\nx-value: caf\u00e9\r\n\r\n", Buffer.from("body"))).toBe(true);
    expect(wire.taken).toEqual([...Buffer.from("HTTP/1.1 200 OK\r\nx-value: caf\u00e9\r\n\r\nbody", "latin1")]);
  });

  test("keeps what the socket did not take, unchanged when another connection writes a head meanwhile", () => {
    const slow = socket(10);
    const slowOut = new Outgoing(slow);
    expect(slowOut.writeHead("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n", Buffer.from("first"))).toBe(false);
    expect(slowOut.pending).toBe(true);

    const other = socket(Number.POSITIVE_INFINITY);
    new Outgoing(other).writeHead("HTTP/1.1 404 Not Found\r\ncontent-length: 6\r\n\r\n", Buffer.from("second"));

    slow.room = Number.POSITIVE_INFINITY;
    slowOut.onDrain();
    expect(slowOut.pending).toBe(false);
    expect(slow.text()).toBe("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nfirst");
    expect(other.text()).toBe("HTTP/1.1 404 Not Found\r\ncontent-length: 6\r\n\r\nsecond");
  });

  test("waits behind bytes already waiting, in order", () => {
    const wire = socket(3);
    const out = new Outgoing(wire);
    out.writeHead("HEAD-ONE\r\n\r\n");
    out.writeHead("HEAD-TWO\r\n\r\n", Buffer.from("two"));
    wire.room = Number.POSITIVE_INFINITY;
    out.onDrain();
    expect(wire.text()).toBe("HEAD-ONE\r\n\r\nHEAD-TWO\r\n\r\ntwo");
  });

  test("longer than the shared buffer, goes out whole too", () => {
    const wire = socket(Number.POSITIVE_INFINITY);
    const head = `x-long: ${"a".repeat(20_000)}\r\n\r\n`;
    new Outgoing(wire).writeHead(head, Buffer.from("tail"));
    expect(wire.text()).toBe(`${head}tail`);
  });
});

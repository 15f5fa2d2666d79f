import { describe, expect, test } from "bun:test";
import { ChunkedBody, ChunkedBodyError } from "./chunked-body";

const bytes = (text: string) => Buffer.from(text, "latin1");

/** Feeds `input` in pieces of `step` bytes, keeping what was not consumed, as a connection does. */
function decode(input: Buffer, step: number): { body: string; done: boolean; rest: string } {
  const decoder = new ChunkedBody();
  const parts: Uint8Array[] = [];
  let held = Buffer.alloc(0);
  for (let at = 0; at < input.length; at += step) {
    held = Buffer.concat([held, input.subarray(at, at + step)]);
    const consumed = decoder.feed(held, 0, (data) => parts.push(Uint8Array.from(data)));
    held = held.subarray(consumed);
    if (decoder.done) {
      held = Buffer.concat([held, input.subarray(at + step)]);
      break;
    }
  }
  return { body: Buffer.concat(parts).toString("latin1"), done: decoder.done, rest: held.toString("latin1") };
}

describe("reading a chunked body", () => {
  const message = bytes("5\r\nhello\r\n1;ext=1\r\n \r\nA \r\n0123456789\r\n0\r\nTrailer-Field: x\r\n\r\nGET /next");

  test("when the bytes come in any pieces, then the body is the chunks' data, extensions and trailers dropped, and what follows is left", () => {
    for (const step of [1, 2, 3, 7, 1000]) {
      expect({ step, ...decode(message, step) }).toEqual({ step, body: "hello 0123456789", done: true, rest: "GET /next" });
    }
  });

  test("when a chunk is not followed by CRLF, then the framing is refused", () => {
    expect(() => decode(bytes("3\r\nabcX\r\n0\r\n\r\n"), 100)).toThrow(ChunkedBodyError);
  });

  test("when a size is not hexadecimal or too large, then the framing is refused", () => {
    for (const size of ["g", "-1", "+1", "0x5", "", "fffffffffffffff"]) {
      expect(() => decode(bytes(`${size}\r\nabc\r\n0\r\n\r\n`), 100)).toThrow(ChunkedBodyError);
    }
  });

  test("when a size line never ends, then it is refused once it passes its bound instead of being held forever", () => {
    const decoder = new ChunkedBody();
    expect(decoder.feed(bytes("5;" + "x".repeat(100)), 0, () => {})).toBe(0);
    expect(() => decoder.feed(bytes("5;" + "x".repeat(5000)), 0, () => {})).toThrow(ChunkedBodyError);
  });

  test("when a size line ends in a bare LF and nothing more comes, then the framing is refused at once, not waited on", () => {
    for (const input of ["5\nhello\n0\n\n", "0\n", "5\r\nhello\r\n0\r\nX: a\n"]) {
      expect(() => new ChunkedBody().feed(bytes(input), 0, () => {})).toThrow(ChunkedBodyError);
    }
  });

  test("when a trailer line has no field name, then the framing is refused", () => {
    expect(() => decode(bytes("0\r\nnot a field\r\n\r\n"), 100)).toThrow(ChunkedBodyError);
  });

  test("when a trailer line holds a bare LF or CR, a fold or a space before its colon, then the framing is refused", () => {
    for (const trailer of ["X: a\n\nDELETE /v1/new-page/1 HTTP/1.1", "X: a\rb", " X: y", "\tX: y", "X : y", "X: a\x00"]) {
      expect(() => decode(bytes(`0\r\n${trailer}\r\n\r\n`), 100)).toThrow(ChunkedBodyError);
    }
  });

  test("when trailer lines are well formed, then they are read past", () => {
    expect(() => decode(bytes("0\r\nX-Checksum: abc\t def\r\nEmpty:\r\n\r\n"), 100)).not.toThrow();
  });
});

import { TOKEN } from "./fields";

/**
 * Reads a chunked request body (RFC 9112, 7.1) from the bytes of a connection
 * as they arrive. Strict on the framing (hex sizes, CRLF after each chunk,
 * bounded size lines and trailers), because the framing decides where the next
 * request on the connection starts.
 */

/** A size line (with any extensions) or one trailer line longer than this is refused. */
const MAX_LINE_BYTES = 4096;
/** All trailer lines together. */
const MAX_TRAILER_BYTES = 16 * 1024;
const HEX_SIZE = /^[0-9A-Fa-f]{1,13}$/;
/** A field line as the head's are read: a token name, the colon at once, a value without controls (HTAB aside). */
const TRAILER_FIELD = new RegExp(`^${TOKEN.source.slice(1, -1)}:[^\\x00-\\x08\\x0a-\\x1f\\x7f]*$`);

export class ChunkedBodyError extends Error {}

type State = "size" | "data" | "data-end" | "trailer" | "done";

export class ChunkedBody {
  private state: State = "size";
  private remaining = 0;
  private trailerBytes = 0;

  get done(): boolean {
    return this.state === "done";
  }

  /**
   * Takes what it can from `input` from `offset` on, handing each piece of body
   * data to `onData`, and returns how many bytes it consumed. An incomplete
   * line is left unconsumed until more bytes arrive. Throws ChunkedBodyError on
   * malformed framing.
   */
  feed(input: Uint8Array, offset: number, onData: (data: Uint8Array) => void): number {
    let at = offset;
    while (at < input.length && this.state !== "done") {
      if (this.state === "data") {
        const take = Math.min(this.remaining, input.length - at);
        onData(input.subarray(at, at + take));
        at += take;
        this.remaining -= take;
        if (this.remaining === 0) this.state = "data-end";
        continue;
      }
      if (this.state === "data-end") {
        if (input.length - at < 2) break;
        if (input[at] !== 13 || input[at + 1] !== 10) throw new ChunkedBodyError("A chunk is not followed by CRLF.");
        at += 2;
        this.state = "size";
        continue;
      }
      const lineEnd = indexOfCrlf(input, at);
      if (lineEnd === -1) {
        if (input.length - at > MAX_LINE_BYTES) throw new ChunkedBodyError("A chunk size line is too long.");
        // A line ended by a bare LF is refused now, not waited on for a CRLF that a client using bare LFs never sends.
        if (input.indexOf(10, at) !== -1) throw new ChunkedBodyError("A chunk size or trailer line ends in a bare LF.");
        break;
      }
      const line = latin1(input, at, lineEnd);
      at = lineEnd + 2;
      if (this.state === "size") {
        if (line.length > MAX_LINE_BYTES) throw new ChunkedBodyError("A chunk size line is too long.");
        const semicolon = line.indexOf(";");
        // Extensions are allowed after the size, and ignored; whitespace before them is tolerated (RFC 9112, 7.1.1 BWS).
        const size = (semicolon === -1 ? line : line.slice(0, semicolon)).replace(/[ \t]+$/, "");
        if (!HEX_SIZE.test(size)) throw new ChunkedBodyError("A chunk size is not a hexadecimal number.");
        if (/[\x00-\x08\x0a-\x1f\x7f]/.test(line)) throw new ChunkedBodyError("A chunk size line holds a control character.");
        this.remaining = parseInt(size, 16);
        this.state = this.remaining === 0 ? "trailer" : "data";
        continue;
      }
      // Trailer lines are read past and dropped: nothing here acts on them.
      if (line === "") {
        this.state = "done";
        break;
      }
      this.trailerBytes += line.length + 2;
      // Held to the head's rules: a bare LF or CR, a fold or a space before the colon would let a reader that
      // allows it see the trailer end elsewhere, and the next request start elsewhere with it.
      if (this.trailerBytes > MAX_TRAILER_BYTES || !TRAILER_FIELD.test(line)) throw new ChunkedBodyError("The chunked body's trailer is malformed.");
    }
    return at - offset;
  }
}

function indexOfCrlf(input: Uint8Array, from: number): number {
  for (let i = input.indexOf(13, from); i !== -1; i = input.indexOf(13, i + 1)) {
    if (input[i + 1] === 10) return i;
    if (i + 1 >= input.length) return -1;
  }
  return -1;
}

function latin1(input: Uint8Array, start: number, end: number): string {
  let text = "";
  for (let i = start; i < end; i++) text += String.fromCharCode(input[i]!);
  return text;
}

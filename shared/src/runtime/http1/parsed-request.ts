import { fetchRequestOf, type FieldReader, type IncomingRequest } from "../incoming-request";

/** Past this many fields, repeated names are found through a map rather than by comparing each with those before it. */
const LINEAR_FIELDS = 16;

/**
 * The fields of a parsed head, read as fetch's `Headers` reads them (names
 * without case, repeated fields joined with ", "), without copying them into
 * a `Headers`.
 */
export class HeadFieldReader implements FieldReader {
  private names: string[] | undefined;

  /** `raw`: name, value, name, value… as sent (values already trimmed and checked by the parser). */
  constructor(private readonly raw: string[]) {}

  get(name: string): string | null {
    const wanted = name.toLowerCase();
    const names = this.lowerNames();
    let value: string | null = null;
    for (let i = 0; i < names.length; i++) {
      if (names[i] === wanted) value = value === null ? this.raw[2 * i + 1]! : `${value}, ${this.raw[2 * i + 1]!}`;
    }
    return value;
  }

  has(name: string): boolean {
    return this.lowerNames().includes(name.toLowerCase());
  }

  forEach(callback: (value: string, name: string) => void): void {
    const names = this.lowerNames();
    if (names.length > LINEAR_FIELDS) return this.forEachByMap(names, callback);
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (names.indexOf(name) !== i) continue;
      let value = this.raw[2 * i + 1]!;
      for (let j = i + 1; j < names.length; j++) if (names[j] === name) value += `, ${this.raw[2 * j + 1]!}`;
      callback(value, name);
    }
  }

  linesAsSent(): { lines: number; bytes: number } {
    let bytes = 0;
    for (let i = 0; i < this.raw.length; i++) bytes += this.raw[i]!.length;
    // Each line's ": " and CRLF.
    return { lines: this.raw.length / 2, bytes: bytes + 2 * this.raw.length };
  }

  private forEachByMap(names: string[], callback: (value: string, name: string) => void): void {
    const joined = new Map<string, string>();
    for (let i = 0; i < names.length; i++) {
      const earlier = joined.get(names[i]!);
      joined.set(names[i]!, earlier === undefined ? this.raw[2 * i + 1]! : `${earlier}, ${this.raw[2 * i + 1]!}`);
    }
    joined.forEach(callback);
  }

  private lowerNames(): string[] {
    if (this.names === undefined) {
      const names = new Array<string>(this.raw.length / 2);
      for (let i = 0; i < names.length; i++) names[i] = this.raw[2 * i]!.toLowerCase();
      this.names = names;
    }
    return this.names;
  }
}

/** A request as our server parsed it; the fetch `Request` is built only if a handler asks for one. */
export class ParsedRequest implements IncomingRequest {
  readonly headers: HeadFieldReader;
  private fetchRequest: Request | undefined;

  constructor(
    readonly method: string,
    readonly url: string,
    private readonly rawHeaders: string[],
    readonly body: ReadableStream<Uint8Array> | null,
  ) {
    this.headers = new HeadFieldReader(rawHeaders);
  }

  toFetchRequest(): Request {
    this.fetchRequest ??= fetchRequestOf(this.method, this.url, this.rawHeaders, this.body);
    return this.fetchRequest;
  }
}

import { describe, expect, test } from "bun:test";
import { toFetchRequest, withMethod } from "../incoming-request";
import { HeadFieldReader, ParsedRequest } from "./parsed-request";

/** What fetch's Headers makes of the same fields: the reader must agree with it on every question the gateway asks. */
function headersOf(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

function entriesOf(reader: { forEach(callback: (value: string, name: string) => void): void }): [string, string][] {
  const entries: [string, string][] = [];
  reader.forEach((value, name) => entries.push([name, value]));
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

const SAMPLES: Record<string, string[]> = {
  "ordinary fields": ["Host", "gateway:8080", "User-Agent", "k6", "Accept", "*/*", "X-API-Key", "wsk_live_abc"],
  "a field repeated, in different cases": ["X-Api-Key", "first", "host", "h", "x-api-key", "second", "X-API-KEY", "third"],
  "empty values": ["X-Empty", "", "Authorization", "", "x-empty", "after"],
  "obs-text and tabs inside a value": ["X-Text", "caf\u00e9\tnoir", "Host", "h"],
  "more fields than the reader compares one by one": Array.from({ length: 40 }, (_, i) => [i % 3 === 0 ? "X-Same" : `X-Field-${i}`, `v${i}`]).flat(),
};

describe("reading a parsed head's fields", () => {
  for (const [name, raw] of Object.entries(SAMPLES)) {
    test(`when the head has ${name}, then every field reads as fetch's Headers reads it`, () => {
      const reader = new HeadFieldReader(raw);
      const headers = headersOf(raw);
      expect(entriesOf(reader)).toEqual(entriesOf(headers));
      for (let i = 0; i < raw.length; i += 2) {
        for (const asked of [raw[i]!, raw[i]!.toLowerCase(), raw[i]!.toUpperCase()]) {
          expect(reader.get(asked)).toBe(headers.get(asked));
          expect(reader.has(asked)).toBe(true);
        }
      }
      expect(reader.get("x-not-sent")).toBeNull();
      expect(reader.has("x-not-sent")).toBe(false);
    });
  }

  test("when a field is repeated, then forEach gives it once, its values joined in the order sent", () => {
    const names: string[] = [];
    new HeadFieldReader(["A", "1", "b", "2", "a", "3"]).forEach((value, name) => names.push(`${name}=${value}`));
    expect(names).toEqual(["a=1, 3", "b=2"]);
  });

  test("when fields are counted as sent, then each line counts, repeated names too, with its colon, space and CRLF", () => {
    expect(new HeadFieldReader(["A", "1", "b", "22", "a", "3"]).linesAsSent()).toEqual({ lines: 3, bytes: 2 + 3 + 2 + 4 * 3 });
  });
});

describe("a parsed request", () => {
  test("when a handler asks for the fetch Request, then it has the same method, URL, fields and body, and is built once", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"title":"x"}'));
        controller.close();
      },
    });
    const parsed = new ParsedRequest("POST", "http://gateway/v1/new-page", ["Host", "gateway", "Content-Type", "application/json", "X-Twice", "a", "x-twice", "b"], body);
    const request = toFetchRequest(parsed);
    expect(request).toBe(toFetchRequest(parsed));
    expect(request.method).toBe("POST");
    expect(request.url).toBe("http://gateway/v1/new-page");
    expect(request.headers.get("x-twice")).toBe("a, b");
    expect(await request.text()).toBe('{"title":"x"}');
  });

  test("when a request is looked at under another method, then it keeps its URL and fields and has no body", () => {
    const parsed = new ParsedRequest("HEAD", "http://gateway/v1/new-page/1", ["Host", "gateway", "X-API-Key", "k"], null);
    const asGet = withMethod(parsed, "GET");
    expect(asGet.method).toBe("GET");
    expect(asGet.url).toBe(parsed.url);
    expect(asGet.headers.get("x-api-key")).toBe("k");
    expect(asGet.body).toBeNull();
    const request = toFetchRequest(asGet);
    expect(request.method).toBe("GET");
    expect(request.headers.get("x-api-key")).toBe("k");
  });

  test("when the request is a fetch Request already, then it is its own fetch Request", () => {
    const request = new Request("http://gateway/healthz");
    expect(toFetchRequest(request)).toBe(request);
  });
});

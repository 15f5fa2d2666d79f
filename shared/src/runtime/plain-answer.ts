import { ANSWER_SLICE_BYTES, bytesInSlices } from "../http/answer-holds";

/** Statuses whose answer never has a body (fetch refuses a `Response` with one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** Header fields as a list of lower-case names and values, edited in place. */
export class FieldList {
  /** `fields`: [name, value] pairs, names lower-case. */
  constructor(readonly fields: [string, string][]) {}

  get(name: string): string | null {
    const wanted = name.toLowerCase();
    let value: string | null = null;
    for (const [field, fieldValue] of this.fields) if (field === wanted) value = value === null ? fieldValue : `${value}, ${fieldValue}`;
    return value;
  }

  /** Replaces every field of the name with this one value, as `Headers.set` does. */
  set(givenName: string, value: string): void {
    const name = givenName.toLowerCase();
    const at = this.fields.findIndex(([field]) => field === name);
    if (at === -1) return void this.fields.push([name, value]);
    this.fields[at] = [name, value];
    for (let i = this.fields.length - 1; i > at; i--) if (this.fields[i]![0] === name) this.fields.splice(i, 1);
  }

  forEach(callback: (value: string, name: string) => void): void {
    for (const [name, value] of this.fields) callback(value, name);
  }
}

/**
 * An answer whose body is whole in memory: what the gateway passes on from a
 * service most of the time. Our HTTP/1.1 server writes it as it is, with no
 * fetch `Response` built for it; whatever needs a `Response` (Deno's server,
 * the idempotency store, CORS, HEAD) gets one from `toResponse`.
 */
export class PlainAnswer {
  readonly headers: FieldList;

  /** `fields`: names lower-case, none of them Content-Length (the body says it). */
  constructor(
    readonly status: number,
    fields: [string, string][],
    readonly body: Uint8Array<ArrayBuffer> | null,
  ) {
    this.headers = new FieldList(fields);
  }

  toResponse(): Response {
    if (NULL_BODY_STATUSES.has(this.status)) return new Response(null, { status: this.status, headers: this.headers.fields });
    const body = this.body ?? new Uint8Array(0);
    const headers: [string, string][] = [...this.headers.fields, ["content-length", String(body.byteLength)]];
    // A long body may be one many answers share (the documentation): a Response of it would be a copy each.
    return new Response(body.byteLength > ANSWER_SLICE_BYTES ? bytesInSlices(body) : body, { status: this.status, headers });
  }
}

/** What a handler may answer: a fetch `Response`, or a plain answer. */
export type Answer = Response | PlainAnswer;

export function toResponse(answer: Answer): Response {
  return answer instanceof PlainAnswer ? answer.toResponse() : answer;
}

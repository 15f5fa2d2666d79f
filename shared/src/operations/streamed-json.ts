/**
 * A success answer written as it is made: the bytes of the success schema's
 * JSON, for a value too large to build whole in memory (a list of pages whose
 * contents pass what one answer may hold at once, a page of megabytes). Its
 * status is the operation's success status; once the first byte is out, a
 * failure can only cut the answer, never end it as whole. `about` is what the
 * headers are made from (a single resource's id and updated_at, its ETag).
 */
export class StreamedJson {
  constructor(
    readonly body: ReadableStream<Uint8Array>,
    readonly about?: object,
  ) {}
}

/**
 * Request header limits, one set for every process. The gateway refuses a
 * request past MAX_REQUEST_HEADER_BYTES or MAX_REQUEST_HEADER_COUNT itself, with
 * the error object (431), before the key is looked at, so it never counts
 * against one. The HTTP parser of every process accepts far more, so that the
 * gateway is the one to answer and a service never refuses what the gateway
 * forwarded (client headers plus the signed principal). Deno's parser has
 * fixed limits (about 64 KiB and 128 headers), still above the gateway's.
 */
export const MAX_REQUEST_HEADER_BYTES = 32 * 1024;
export const MAX_REQUEST_HEADER_COUNT = 100;

/**
 * What every Bun process's parser accepts: every Bun process is started with
 * --max-http-header-size set to it, so a service never refuses a head the
 * gateway forwards.
 */
export const PARSER_MAX_HEADER_BYTES = 1024 * 1024;

/**
 * The most of one request head (request line and fields) the gateway's own
 * HTTP/1.1 server holds; past it the answer is 431 with the error object at
 * once, and the connection closes. Twice MAX_REQUEST_HEADER_BYTES, so that a
 * head the gateway answers itself (served, or 431 naming the fields' limit) is
 * read whole; an incomplete head never holds more than this per connection.
 */
export const SERVER_MAX_HEAD_BYTES = 2 * MAX_REQUEST_HEADER_BYTES;

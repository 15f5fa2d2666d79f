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
 * What every Bun process's parser accepts: the gateway's HTTP/1.1 server is given
 * it, and every Bun process is started with --max-http-header-size set to it.
 * Past it the gateway's server still answers 431 with the error object.
 */
export const PARSER_MAX_HEADER_BYTES = 1024 * 1024;

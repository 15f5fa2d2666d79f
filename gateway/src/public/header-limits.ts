import { ApiError, MAX_REQUEST_HEADER_BYTES, MAX_REQUEST_HEADER_COUNT, type FieldReader } from "@ws/shared";

/** Field lines and their bytes: as sent where the reader still has them (one name repeated 6,000 times is 6,000 fields, not one). */
function sizeOf(headers: FieldReader): { lines: number; bytes: number } {
  const asSent = headers.linesAsSent?.();
  if (asSent) return asSent;
  let lines = 0;
  let bytes = 0;
  headers.forEach((value, name) => {
    bytes += name.length + value.length + 4;
    lines += 1;
  });
  return { lines, bytes };
}

/**
 * 431 with the error object, before anything else is looked at (so it never
 * counts against a key). Every runtime's parser accepts more than this, and
 * every service accepts what the gateway forwards.
 */
export function assertHeadersWithinLimits(headers: FieldReader): void {
  const { lines, bytes } = sizeOf(headers);
  if (bytes > MAX_REQUEST_HEADER_BYTES) {
    throw new ApiError("request_header_fields_too_large", `The request headers exceed ${MAX_REQUEST_HEADER_BYTES} bytes.`);
  }
  if (lines > MAX_REQUEST_HEADER_COUNT) {
    throw new ApiError("request_header_fields_too_large", `The request has more than ${MAX_REQUEST_HEADER_COUNT} header fields.`);
  }
}

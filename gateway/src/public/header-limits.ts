import { ApiError, MAX_REQUEST_HEADER_BYTES, MAX_REQUEST_HEADER_COUNT, type FieldReader } from "@ws/shared";

/**
 * 431 with the error object, before anything else is looked at (so it never
 * counts against a key). Every runtime's parser accepts more than this, and
 * every service accepts what the gateway forwards.
 */
export function assertHeadersWithinLimits(headers: FieldReader): void {
  let bytes = 0;
  let count = 0;
  headers.forEach((value, name) => {
    bytes += name.length + value.length + 4;
    count += 1;
  });
  if (bytes > MAX_REQUEST_HEADER_BYTES) {
    throw new ApiError("request_header_fields_too_large", `The request headers exceed ${MAX_REQUEST_HEADER_BYTES} bytes.`);
  }
  if (count > MAX_REQUEST_HEADER_COUNT) {
    throw new ApiError("request_header_fields_too_large", `The request has more than ${MAX_REQUEST_HEADER_COUNT} header fields.`);
  }
}

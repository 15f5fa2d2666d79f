/** Every error code the API can answer with, and the status it travels with. */
export const ERROR_STATUS = {
  bad_request: 400,
  missing_token: 401,
  invalid_token: 401,
  insufficient_permissions: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_in_use: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  request_header_fields_too_large: 431,
  validation_error: 422,
  idempotency_key_reused: 422,
  rate_limit_exceeded: 429,
  key_suspended: 429,
  internal_error: 500,
  /** 502 instead when the request's outcome is unknown (http/deadline.ts, outcomeUnknown). */
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_STATUS, value);
}

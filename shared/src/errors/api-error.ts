import { ERROR_STATUS, type ErrorCode } from "./codes";
import { errorBody, type ErrorDetails } from "./error-body";

/**
 * The one error type handlers throw. It knows its status and turns itself into
 * the error object; the process's error handler adds the request id.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: ErrorDetails;
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetails; status?: number; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers;
  }

  toResponse(requestId?: string, extraHeaders?: HeadersInit): Response {
    const details = requestId ? { ...this.details, request_id: requestId } : this.details;
    const headers = new Headers(extraHeaders);
    headers.set("content-type", "application/json");
    if (requestId) headers.set("x-request-id", requestId);
    for (const [name, value] of Object.entries(this.headers ?? {})) headers.set(name, value);
    return new Response(JSON.stringify(errorBody(this.code, this.message, details)), { status: this.status, headers });
  }

  static validation(fields: string[], message: string): ApiError {
    return new ApiError("validation_error", message, { details: { fields } });
  }

  static badRequest(message: string, fields?: string[]): ApiError {
    return new ApiError("bad_request", message, fields ? { details: { fields } } : {});
  }

  static notFound(message = "The resource does not exist."): ApiError {
    return new ApiError("not_found", message);
  }
}

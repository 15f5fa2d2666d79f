import { ERROR_STATUS, type ErrorCode } from "./codes";
import { errorBody, type ErrorDetails } from "./error-body";
import { joinMessages, topLevelFields, type FieldError, type FieldRule } from "./field-errors";

/** A field's message is a clause, like those the schema checks write: no closing full stop. */
function asFieldMessage(message: string): string {
  return message.replace(/\.$/, "");
}

/** `details.errors` goes wherever `details.fields` does: a refusal naming fields without saying how says it per field with its own sentence. */
function withFieldErrors(details: ErrorDetails | undefined, message: string): ErrorDetails | undefined {
  if (details?.fields === undefined || details.errors !== undefined) return details;
  return { ...details, errors: details.fields.map((field): FieldError => ({ field, rule: "invalid", message: asFieldMessage(message) })) };
}

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
    options: { details?: ErrorDetails; status?: number; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    // The cause is for the log line (why a 503 happened), never for the client's body.
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ApiError";
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.details = withFieldErrors(options.details, message);
    this.headers = options.headers;
  }

  /** Why this error happened, as one line (the causes' messages, outermost first), or undefined when it has no cause. */
  causeMessage(): string | undefined {
    const messages: string[] = [];
    for (let cause = this.cause; cause !== undefined && messages.length < 5; cause = cause instanceof Error ? cause.cause : undefined) {
      messages.push(cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause));
    }
    return messages.length ? messages.join(" <- ") : undefined;
  }

  toResponse(requestId?: string, extraHeaders?: HeadersInit): Response {
    const details = requestId ? { ...this.details, request_id: requestId } : this.details;
    const headers = new Headers(extraHeaders);
    headers.set("content-type", "application/json");
    if (requestId) headers.set("x-request-id", requestId);
    for (const [name, value] of Object.entries(this.headers ?? {})) headers.set(name, value);
    return new Response(JSON.stringify(errorBody(this.code, this.message, details)), { status: this.status, headers });
  }

  /**
   * A request refused field by field: `details.fields` names them and
   * `details.errors` says per field which rule failed; the message joins the
   * per-field sentences.
   */
  static invalid(code: "validation_error" | "bad_request", errors: FieldError[], message = joinMessages(errors)): ApiError {
    return new ApiError(code, message, { details: { fields: topLevelFields(errors), errors } });
  }

  /** A rule over one or more fields, the same sentence for each (for example "Send at least one of title and content."). */
  static validation(fields: string[], message: string, rule: FieldRule = "invalid"): ApiError {
    return ApiError.invalid("validation_error", fields.map((field) => ({ field, rule, message: asFieldMessage(message) })), message);
  }

  static badRequest(message: string, fields?: string[], rule: FieldRule = "invalid"): ApiError {
    if (!fields) return new ApiError("bad_request", message);
    return ApiError.invalid("bad_request", fields.map((field) => ({ field, rule, message: asFieldMessage(message) })), message);
  }

  static notFound(message = "The resource does not exist."): ApiError {
    return new ApiError("not_found", message);
  }
}

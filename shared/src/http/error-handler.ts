import { Elysia, ValidationError } from "elysia";
import { databaseErrorAnswer } from "../db/database-errors";
import { ApiError } from "../errors/api-error";
import type { Logger } from "../observability/logger";
import { requestIdOf } from "./request-id";
import { explainValidation } from "./validation-details";

export interface ErrorHandlerOptions {
  /** How a failed schema check is answered: pages say 422, the calendar 400. */
  validationCode: "validation_error" | "bad_request";
  logger: Logger;
}

export function toApiError(code: string | number, error: unknown, options: Pick<ErrorHandlerOptions, "validationCode">, method = "POST"): ApiError {
  if (error instanceof ApiError) return error;
  // Path parameters are ids: one that cannot even be decoded is a malformed id, 404.
  if (error instanceof ValidationError && error.type === "params") return ApiError.notFound("The resource does not exist.");
  // A handler's answer that breaks its own response schema is our fault, never the client's.
  if (error instanceof ValidationError && error.type === "response") return new ApiError("internal_error", "Something went wrong on our side.");
  if (error instanceof ValidationError) {
    const errors = explainValidation(error);
    if (errors.length === 0) return new ApiError(options.validationCode, "The request is not valid.", { details: { fields: [] } });
    return ApiError.invalid(options.validationCode, errors);
  }
  // The body reader's own refusal (not JSON, no JSON Content-Type, not UTF-8, not an object) says which; Elysia wraps it.
  if (code === "PARSE" && error instanceof Error && error.cause instanceof ApiError) return error.cause;
  switch (code) {
    case "PARSE":
      return ApiError.badRequest("The request body could not be parsed.");
    case "NOT_FOUND":
      return ApiError.notFound("No such path.");
    default:
      return databaseErrorAnswer(error, method) ?? new ApiError("internal_error", "Something went wrong on our side.");
  }
}

/** A value Elysia answers as JSON: an object or array, not a body of its own kind. */
function answeredAsJson(value: unknown): boolean {
  return value !== null && typeof value === "object" && !(value instanceof Response) && !(value instanceof Blob) && !(value instanceof ReadableStream) && !ArrayBuffer.isView(value) && !(value instanceof ArrayBuffer);
}

/**
 * The one place a process turns thrown errors into the error object, and gives
 * every answer its request id and every JSON answer the type `application/json`
 * exactly, as error objects have it (Bun's own default adds `;charset=utf-8`).
 */
export function errorHandler(options: ErrorHandlerOptions) {
  return new Elysia({ name: "error-handler", seed: options.validationCode })
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = requestIdOf(request);
    })
    .mapResponse({ as: "global" }, ({ responseValue, set }) => {
      if (answeredAsJson(responseValue)) set.headers["content-type"] = "application/json";
    })
    .onError({ as: "global" }, ({ code, error, request }) => {
      const apiError = toApiError(code, error, options, request.method);
      if (error instanceof ApiError && apiError.code === "service_unavailable") {
        // A refusal the process chose (its budget or deadline spent, shutting down): one line, no stack, however many.
        options.logger.warn("request refused", {
          request_id: requestIdOf(request),
          code: apiError.code,
          message: apiError.message,
          ...(apiError.causeMessage() && { cause: apiError.causeMessage() }),
        });
      } else if (apiError.status >= 500) {
        options.logger.error("request failed", {
          request_id: requestIdOf(request),
          error: error instanceof Error ? error.stack ?? error.message : String(error),
          ...(apiError.causeMessage() && { cause: apiError.causeMessage() }),
        });
      }
      return apiError.toResponse(requestIdOf(request));
    });
}

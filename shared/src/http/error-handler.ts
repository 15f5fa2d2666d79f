import { Elysia, ValidationError } from "elysia";
import { databaseErrorAnswer } from "../db/database-errors";
import { ApiError } from "../errors/api-error";
import type { Logger } from "../observability/logger";
import { requestIdOf } from "./request-id";

export interface ErrorHandlerOptions {
  /** How a failed schema check is answered: pages say 422, the calendar 400 (contract 3). */
  validationCode: "validation_error" | "bad_request";
  logger: Logger;
}

/** Names of the fields a schema check complained about, in the order reported. */
export function failedFields(error: ValidationError): string[] {
  const fields = new Set<string>();
  for (const issue of error.all) {
    const path = "path" in issue && typeof issue.path === "string" ? issue.path : "";
    const field = path.split("/").filter(Boolean)[0];
    if (field) fields.add(decodeURIComponent(field.replace(/~1/g, "/").replace(/~0/g, "~")));
  }
  return [...fields];
}

export function toApiError(code: string | number, error: unknown, options: Pick<ErrorHandlerOptions, "validationCode">, method = "POST"): ApiError {
  if (error instanceof ApiError) return error;
  // Path parameters are ids: one that cannot even be decoded is a malformed id, 404 (contract 2).
  if (error instanceof ValidationError && error.type === "params") return ApiError.notFound("The resource does not exist.");
  if (error instanceof ValidationError) {
    const fields = failedFields(error);
    const message = fields.length ? `Invalid value for ${fields.join(", ")}.` : "The request is not valid.";
    return new ApiError(options.validationCode, message, { details: { fields } });
  }
  switch (code) {
    case "PARSE":
      return ApiError.badRequest("The request body could not be parsed.");
    case "NOT_FOUND":
      return ApiError.notFound("No such path.");
    default:
      return databaseErrorAnswer(error, method) ?? new ApiError("internal_error", "Something went wrong on our side.");
  }
}

/** The one place a process turns thrown errors into the error object. */
export function errorHandler(options: ErrorHandlerOptions) {
  return new Elysia({ name: "error-handler", seed: options.validationCode })
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = requestIdOf(request);
    })
    .onError({ as: "global" }, ({ code, error, request }) => {
      const apiError = toApiError(code, error, options, request.method);
      if (apiError.status >= 500) {
        options.logger.error("request failed", {
          request_id: requestIdOf(request),
          error: error instanceof Error ? error.stack ?? error.message : String(error),
        });
      }
      return apiError.toResponse(requestIdOf(request));
    });
}

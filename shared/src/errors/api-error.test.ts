import { describe, expect, test } from "bun:test";
import { ApiError } from "./api-error";

describe("ApiError's cause", () => {
  test("when an error is made with a cause, then the cause is kept and read as one line, outermost first", () => {
    const socket = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    const fetchError = new TypeError("fetch failed", { cause: socket });
    const error = new ApiError("service_unavailable", "The service is unavailable.", { cause: fetchError });
    expect(error.cause).toBe(fetchError);
    expect(error.causeMessage()).toBe("TypeError: fetch failed <- Error: connect ECONNREFUSED 127.0.0.1:1");
  });

  test("when an error has no cause, then it has no cause message", () => {
    expect(new ApiError("not_found", "No such page.").causeMessage()).toBeUndefined();
    expect(new ApiError("not_found", "No such page.")).not.toHaveProperty("cause");
  });

  test("when a cause is not an Error, then it is written as text", () => {
    expect(new ApiError("internal_error", "Oops.", { cause: "socket closed" }).causeMessage()).toBe("socket closed");
  });

  test("when the response is made, then the cause never reaches the client's body", async () => {
    const response = new ApiError("service_unavailable", "The service is unavailable.", { cause: new Error("secret upstream detail") }).toResponse("req-1");
    const text = await response.text();
    expect(text).not.toContain("secret upstream detail");
    expect(JSON.parse(text).error.code).toBe("service_unavailable");
  });
});

describe("ApiError's fields", () => {
  test("when an error names fields without saying how each failed, then details.errors says it per field with the error's sentence", () => {
    const error = new ApiError("idempotency_key_reused", "This key was used with another body.", { details: { fields: ["Idempotency-Key"] } });
    expect(error.details).toEqual({
      fields: ["Idempotency-Key"],
      errors: [{ field: "Idempotency-Key", rule: "invalid", message: "This key was used with another body" }],
    });
  });

  test("when an error says per field how each failed, then its errors are kept as they are", () => {
    const errors = [{ field: "title", rule: "length" as const, message: "title must be 1 to 255 characters" }];
    expect(new ApiError("validation_error", "Bad.", { details: { fields: ["title"], errors } }).details!.errors).toBe(errors);
    expect(new ApiError("not_found", "No such page.").details).toBeUndefined();
  });
});

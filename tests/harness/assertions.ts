import { expect } from "bun:test";
import { isErrorObject, type ApiResponse } from "./http";

type Answer = Pick<ApiResponse, "status" | "body">;

/** The error object with this status and code; when `fields` is given, exactly those fields are named. */
export function expectError(response: Answer, status: number, code: string, fields?: string[]): void {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
  expect(isErrorObject(response.body)).toBe(true);
  if (fields) expect(response.body.error.details.fields).toEqual(fields);
}

/** A 502 service_unavailable whose request may or may not have taken effect. */
export function expectOutcomeUnknown(response: Answer): void {
  expectError(response, 502, "service_unavailable");
  expect(response.body.error.details.outcome).toBe("unknown");
}

/** As expectError, but the error names at least `fields` (others may be named too). */
export function expectErrorNaming(response: Answer, status: number, code: string, fields: string[]): void {
  expectError(response, status, code);
  for (const field of fields) expect(response.body.error.details.fields).toContain(field);
}

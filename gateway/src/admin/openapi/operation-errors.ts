import { t, type TSchema } from "elysia";
import { ERROR_STATUS, ErrorObject, pathParamNames } from "@ws/shared";
import type { AdminOperationSpec } from "../operations";

/** The error body, as every management route declares it (its TypeBox `$id` belongs to the public document). */
export const AdminError = t.Object(ErrorObject.properties, {
  title: "Error",
  description: "The body of every 4xx and 5xx answer: `error.code`, `error.message`, and `error.details` (`request_id`; on a validation failure `fields` and `errors`).",
});

/**
 * Every error status a management operation can answer, each with why, derived
 * from its table entry: the admin token (401) and a failure of our own (500)
 * everywhere, 400 and 422 from a body, 422 from a query, 404 from an id in the
 * path, and the status of each rule's code.
 */
export function adminOperationErrors(operation: AdminOperationSpec): Map<number, string[]> {
  const reasons = new Map<number, string[]>();
  const add = (status: number, reason: string) => reasons.set(status, [...(reasons.get(status) ?? []), reason]);
  add(401, "`missing_token` or `invalid_token`: send `Authorization: Bearer <ADMIN_TOKEN>`.");
  add(429, "`rate_limit_exceeded`: this client address failed the admin token too often this minute, and is refused whatever it sends until `Retry-After`.");
  add(500, "Something failed on our side; quote the `X-Request-Id`.");
  add(503, "`service_unavailable`: the database cannot be reached, and nothing was done (`Retry-After`); or a change of keys, members or teams was committed but could not be announced to every gateway replica (`details.committed` true, `details.propagated` false).");
  if (operation.body) {
    add(400, "The body is not valid JSON, not a JSON object, or sent without `Content-Type: application/json`; the message says which.");
    add(413, "`payload_too_large`: the body is larger than 1 MiB.");
    add(422, "A body field breaks its rule: `details.fields` names it, `details.errors` says which rule failed and what is allowed.");
  }
  if (operation.query) add(422, "A query parameter breaks its rule: `details.fields` names it, `details.errors` says which rule failed and what is allowed.");
  if (pathParamNames(operation.path).length > 0) add(404, "No such workspace, or nothing with that id in it (a malformed id included).");
  for (const rule of operation.rules ?? []) add(ERROR_STATUS[rule.code], rule.when);
  return new Map([...reasons].sort(([a], [b]) => a - b));
}

/** What a management route says about itself for the generated document: its detail, and the error statuses it declares. */
export function describeAdminRoute(operationId: string, operation: AdminOperationSpec): { detail: object; response: Record<number, TSchema> } {
  return {
    detail: { operationId, summary: operation.summary, description: operation.description, tags: [operation.tag] },
    response: Object.fromEntries([...adminOperationErrors(operation).keys()].map((status) => [status, AdminError])),
  };
}

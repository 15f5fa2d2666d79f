import { ERROR_STATUS, OUTCOME_UNKNOWN_STATUS, PUBLIC_SERVICES, pathParamNames, type PublicOperation } from "@ws/shared";

/**
 * What the gateway itself can answer on any authenticated operation: a refused
 * key, scope or role (401, 403), the rate limit (429), oversized headers (431),
 * and a failure of its own or of the service behind it (500, 502, 503).
 */
export const GATEWAY_ERROR_STATUSES = [401, 403, 429, 431, 500, 502, 503] as const;

const MiB = 1024 * 1024;

/** A POST takes `Idempotency-Key`. */
export const takesIdempotencyKey = (operation: Pick<PublicOperation, "method">) => operation.method === "POST";
/** A single resource read by id answers 304 to `If-None-Match` naming its current tag. */
export const readsConditionally = (operation: Pick<PublicOperation, "method" | "path">) =>
  operation.method === "GET" && pathParamNames(operation.path).length > 0;
/** An update or delete by id takes `If-Match`. */
export const writesConditionally = (operation: Pick<PublicOperation, "method" | "path">) =>
  (operation.method === "PUT" || operation.method === "DELETE") && pathParamNames(operation.path).length > 0;
/** A success that is one resource with an id and an `updated_at` carries its `ETag`. */
export function answersEntityTag(operation: Pick<PublicOperation, "method" | "success">): boolean {
  const properties = (operation.success.schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  return operation.method !== "DELETE" && "id" in properties && "updated_at" in properties;
}

/**
 * Every error status an operation can answer, each with why when the operation
 * itself is the reason, derived from its table entry: the gateway's statuses,
 * 413 from its body limit, 400 from taking a body, its service's validation
 * status from taking a body or query, 404 from an id in its path, the
 * idempotency answers of a POST, 412 from a conditional write, and the status
 * of each rule's error code.
 */
export function operationErrors(operation: PublicOperation): Map<number, string[]> {
  const reasons = new Map<number, string[]>();
  const add = (status: number, reason?: string) => {
    const list = reasons.get(status) ?? [];
    if (reason) list.push(reason);
    reasons.set(status, list);
  };
  for (const status of GATEWAY_ERROR_STATUSES) add(status);
  add(413, `The request body is larger than ${operation.maxBodyBytes / MiB} MiB.`);
  const invalid = ERROR_STATUS[PUBLIC_SERVICES[operation.service].validationCode];
  if (operation.body) {
    add(400, "The body is not valid JSON, not a JSON object, or sent without `Content-Type: application/json`.");
    add(invalid, "A body field is missing, of the wrong type or format, or out of its bounds; `details.fields` names them.");
  }
  if (operation.query) add(invalid, "A query parameter is of the wrong type or format, or out of its bounds; `details.fields` names it.");
  if (pathParamNames(operation.path).length > 0) {
    add(404, "Nothing with that id is visible to the key: it never existed, was deleted, belongs to another workspace, or the id is malformed.");
  }
  if (takesIdempotencyKey(operation)) {
    add(400, "`Idempotency-Key` is longer than 255 characters or holds other than visible ASCII (`details.fields` names it).");
    add(409, "`idempotency_key_in_use`: a request with the same `Idempotency-Key` is still running; retry after `Retry-After`.");
    add(ERROR_STATUS.idempotency_key_reused, "`idempotency_key_reused`: the `Idempotency-Key` was used with another body or operation.");
    add(OUTCOME_UNKNOWN_STATUS, "Replayed for an `Idempotency-Key` whose first request ended without a known outcome (`details.outcome: \"unknown\"`).");
  }
  if (writesConditionally(operation)) add(412, "`precondition_failed`: `If-Match` names none of the resource's current version.");
  for (const rule of operation.rules ?? []) add(ERROR_STATUS[rule.code], rule.when);
  return new Map([...reasons].sort(([a], [b]) => a - b));
}

import { ERROR_STATUS, PUBLIC_SERVICES, pathParamNames, type PublicOperation } from "@ws/shared";

/**
 * What the gateway itself can answer on any authenticated operation: a refused
 * key, scope or role (401, 403), the rate limit (429), oversized headers (431),
 * and a failure of its own or of the service behind it (500, 502, 503).
 */
export const GATEWAY_ERROR_STATUSES = [401, 403, 429, 431, 500, 502, 503, 504] as const;

const MiB = 1024 * 1024;

/**
 * Every error status an operation can answer, each with why when the operation
 * itself is the reason, derived from its table entry: the gateway's statuses,
 * 413 from its body limit, 400 from taking a body, its service's validation
 * status from taking a body or query, 404 from an id in its path, and the
 * status of each rule's error code.
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
  for (const rule of operation.rules ?? []) add(ERROR_STATUS[rule.code], rule.when);
  return new Map([...reasons].sort(([a], [b]) => a - b));
}

// @ts-check
/**
 * Removing what a run provisioned: teardown() deletes the run's workspace
 * through the management API. Servers without that call answer 404 or 405;
 * the workspace is then left in place with a note, never a failed run. No k6
 * imports: the k6 side is lib/api.js.
 */

/** @typedef {"deleted" | "unsupported" | "failed"} DeleteOutcome */

/**
 * Any other answer is a server fault worth failing the run for (the delete
 * call exists but broke), so it has a threshold of its own.
 */
export const CLEANUP_THRESHOLDS = { cleanup_failed: ["count==0"] };

/**
 * @param {number} status of DELETE /admin/v1/workspaces/{id}; 0 when no answer came
 * @returns {DeleteOutcome}
 */
export function deleteOutcome(status) {
  if (status >= 200 && status < 300) return "deleted";
  if (status === 404 || status === 405) return "unsupported";
  return "failed";
}

/**
 * What the report says about cleanup, from the run's counters.
 * @param {Record<string, { values: Record<string, number> }>} metrics k6's summary metrics
 * @returns {string[]}
 */
export function cleanupNotes(metrics) {
  /** @param {string} name */
  const count = (name) => (metrics[name] && metrics[name].values.count) || 0;
  /** @type {string[]} */
  const notes = [];
  const deleted = count("cleanup_deleted");
  const unsupported = count("cleanup_unsupported");
  const failed = count("cleanup_failed");
  if (deleted > 0) notes.push("cleanup: the provisioned workspace was deleted");
  if (unsupported > 0) notes.push("cleanup: this server cannot delete workspaces (DELETE /admin/v1/workspaces/{id} answered 404 or 405); the provisioned workspace is left in place");
  if (failed > 0) notes.push("cleanup: deleting the provisioned workspace failed (see the log); it may be left in place");
  return notes;
}

// @ts-check
/**
 * The k6 side of talking to the system: authenticated requests to the public
 * gateway and provisioning through the management API on the gateway's
 * internal port. Only setup() provisions and only teardown() cleans up;
 * iterations only use keys.
 */
import http from "k6/http";
import { Counter } from "k6/metrics";
import { deleteOutcome } from "./cleanup.js";

const cleanupCounters = {
  deleted: new Counter("cleanup_deleted"),
  unsupported: new Counter("cleanup_unsupported"),
  failed: new Counter("cleanup_failed"),
};

/**
 * @typedef {Object} Admin
 * @property {string} adminUrl
 * @property {string} adminToken
 */

/**
 * @typedef {Object} Workspace
 * @property {string} workspaceId
 * @property {string} ownerId
 * @property {string} name
 */

/**
 * @param {string} key
 * @returns {Record<string, string>}
 */
export function authHeaders(key) {
  return { Authorization: "Bearer " + key, "Content-Type": "application/json", Accept: "application/json" };
}

/**
 * The base URL for the n-th request, round robin over the replicas.
 * @param {string[]} urls
 * @param {number} n
 */
export function targetFor(urls, n) {
  const url = urls[((n % urls.length) + urls.length) % urls.length];
  if (url === undefined) throw new Error("no base URL to send to");
  return url;
}

/** A short unique suffix, so runs never collide on names or emails. */
export function runId() {
  return Date.now().toString(36) + Math.floor(Math.random() * 1e6).toString(36);
}

/**
 * @param {Admin} admin
 * @param {string} path
 * @param {Record<string, unknown>} body
 * @param {string} name tag naming the operation in k6's output
 * @returns {Record<string, unknown>}
 */
function adminPost(admin, path, body, name) {
  const res = http.post(admin.adminUrl + path, JSON.stringify(body), {
    headers: { Authorization: "Bearer " + admin.adminToken, "Content-Type": "application/json" },
    tags: { name },
  });
  if (res.status !== 201) {
    const text = typeof res.body === "string" ? res.body.slice(0, 300) : "";
    throw new Error("POST " + admin.adminUrl + path + " answered " + res.status + (res.error ? " (" + res.error + ")" : "") + ": " + text);
  }
  const parsed = JSON.parse(String(res.body));
  if (parsed === null || typeof parsed !== "object") throw new Error("POST " + path + " answered 201 without a JSON object");
  return parsed;
}

/**
 * A fresh workspace with an owner, so the run's keys and data are its own.
 * @param {Admin} admin
 * @param {string} label
 * @returns {Workspace}
 */
export function provisionWorkspace(admin, label) {
  const id = runId();
  const name = label + " " + id;
  const workspace = adminPost(admin, "/admin/v1/workspaces", { name }, "admin create workspace");
  const workspaceId = String(workspace.id);
  const owner = adminPost(
    admin,
    "/admin/v1/workspaces/" + workspaceId + "/members",
    { email: "k6-owner-" + id + "@example.com", name: "k6 owner", role: "owner" },
    "admin create member",
  );
  return { workspaceId, ownerId: String(owner.id), name };
}

/**
 * Deletes a provisioned workspace (and with it the run's keys and data), for
 * teardown(). Never throws: a server without the call leaves it in place.
 * @param {Admin} admin
 * @param {Workspace} workspace
 */
export function deleteWorkspace(admin, workspace) {
  const path = "/admin/v1/workspaces/" + workspace.workspaceId;
  const res = http.del(admin.adminUrl + path, null, {
    headers: { Authorization: "Bearer " + admin.adminToken },
    tags: { name: "admin delete workspace" },
    // Not a failed request when the server has no such call: k6's http_req_failed stays clean.
    responseCallback: http.expectedStatuses({ min: 200, max: 299 }, 404, 405),
  });
  const outcome = deleteOutcome(res.status);
  cleanupCounters[outcome].add(1);
  const what = "workspace " + JSON.stringify(workspace.name) + " (" + workspace.workspaceId + ")";
  if (outcome === "deleted") console.log("cleanup: deleted " + what);
  else if (outcome === "unsupported") console.warn("cleanup: DELETE " + path + " answered " + res.status + ": this server cannot delete workspaces, so " + what + " is left in place");
  else console.error("cleanup: DELETE " + path + " answered " + res.status + (res.error ? " (" + res.error + ")" : "") + "; " + what + " may be left in place");
}

/**
 * @param {Admin} admin
 * @param {Workspace} workspace
 * @param {{ name: string, scopes: string[], rateLimitPerMinute: number }} spec
 * @returns {string} the full key, shown once
 */
export function createKey(admin, workspace, spec) {
  const created = adminPost(
    admin,
    "/admin/v1/workspaces/" + workspace.workspaceId + "/api-keys",
    { name: spec.name, created_by: workspace.ownerId, scopes: spec.scopes, rate_limit_per_minute: spec.rateLimitPerMinute },
    "admin create api key",
  );
  if (typeof created.key !== "string") throw new Error("creating an API key answered 201 without the key");
  return created.key;
}

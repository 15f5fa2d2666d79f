// @ts-check
/**
 * The k6 side of talking to the system: authenticated requests to the public
 * gateway and provisioning through the management API (contract section 8).
 * Only setup() provisions; iterations only use keys.
 */
import http from "k6/http";

/**
 * @typedef {Object} Admin
 * @property {string} adminUrl
 * @property {string} adminToken
 */

/**
 * @typedef {Object} Workspace
 * @property {string} workspaceId
 * @property {string} ownerId
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
  const workspace = adminPost(admin, "/admin/v1/workspaces", { name: label + " " + id }, "admin create workspace");
  const workspaceId = String(workspace.id);
  const owner = adminPost(
    admin,
    "/admin/v1/workspaces/" + workspaceId + "/members",
    { email: "k6-owner-" + id + "@example.com", name: "k6 owner", role: "owner" },
    "admin create member",
  );
  return { workspaceId, ownerId: String(owner.id) };
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

// @ts-check
/**
 * The page and calendar traffic shared by mixed.js, spike.js and soak.js:
 * setup() gets a key (provisioned or given) and seeds pages and a calendar;
 * each iteration performs one operation of the mix and checks its answer.
 */
import http from "k6/http";
import { check } from "k6";
import exec from "k6/execution";
import { Counter } from "k6/metrics";
import { authHeaders, createKey, deleteWorkspace, provisionWorkspace, runId, targetFor } from "./api.js";
import { keyLimitFor, pickOperation, WORKLOAD_SCOPES } from "./mix.js";
import { cleanupNotes } from "./cleanup.js";
import { readRateLimitHeaders } from "./ratelimit-rules.js";
import { summaryOutputs } from "./summary.js";
import {
  calendarListProblems,
  errorBodyProblems,
  eventListProblems,
  eventProblems,
  pageListProblems,
  pageProblems,
  parseJson,
} from "./shapes.js";

// k6 skips thresholds of metrics that got no sample: setupWorkload() adds a 0,
// so a run whose iterations all died before checking anything fails.
const completed = new Counter("operations_completed");

/**
 * @typedef {Object} WorkloadData
 * @property {string[]} urls
 * @property {string} key
 * @property {string[]} pageIds seeded pages: read, never changed
 * @property {string} calendarId
 * @property {string} searchTerm a word every seeded title contains
 * @property {import("./api.js").Workspace | null} workspace the one setup() provisioned, deleted by teardown()
 */

/**
 * @typedef {Object} WorkloadSettings
 * @property {string[]} urls
 * @property {import("./config.js").Credentials} credentials
 * @property {number} peakPerSecond the highest iteration rate of the run
 * @property {number} seedPages
 * @property {string} label
 */

/**
 * @param {import("k6/http").RefinedResponse<undefined>} res
 * @param {string} what
 */
function expectCreated(res, what) {
  if (res.status !== 201) {
    const problems = errorBodyProblems(parseJson(typeof res.body === "string" ? res.body : null));
    const body = typeof res.body === "string" ? res.body.slice(0, 300) : "";
    throw new Error("seeding " + what + " answered " + res.status + (res.error ? " (" + res.error + ")" : "") + ": " + (problems.length === 0 ? body : problems.join("; ")));
  }
  const parsed = /** @type {Record<string, unknown>} */ (parseJson(String(res.body)));
  return String(parsed.id);
}

/**
 * @param {WorkloadSettings} settings
 * @returns {WorkloadData}
 */
export function setupWorkload(settings) {
  completed.add(0);
  const credentials = settings.credentials;
  if (credentials.mode === "keys") {
    const key = credentials.keys[0] || "";
    checkGivenKey(settings, key);
    return Object.assign({ urls: settings.urls, key, workspace: null }, seed(settings, key));
  }
  const admin = { adminUrl: credentials.adminUrl, adminToken: credentials.adminToken };
  const workspace = provisionWorkspace(admin, settings.label);
  try {
    const key = createKey(admin, workspace, { name: settings.label, scopes: WORKLOAD_SCOPES, rateLimitPerMinute: keyLimitFor(settings.peakPerSecond) });
    return Object.assign({ urls: settings.urls, key, workspace }, seed(settings, key));
  } catch (e) {
    // teardown() does not run after a failed setup(): clean up here.
    deleteWorkspace(admin, workspace);
    throw e;
  }
}

/**
 * A given key must be able to list pages and allow the run's rate.
 * @param {WorkloadSettings} settings
 * @param {string} key
 */
function checkGivenKey(settings, key) {
  const probe = http.get(targetFor(settings.urls, 0) + "/v1/new-page?per_page=1", { headers: authHeaders(key), tags: { name: "setup probe" } });
  if (probe.status !== 200) throw new Error("API_KEY cannot list pages: GET /v1/new-page answered " + probe.status + (probe.error ? " (" + probe.error + ")" : ""));
  const limit = readRateLimitHeaders(probe.headers).limit;
  const sent = Math.ceil(settings.peakPerSecond * 60);
  if (limit !== null && limit < sent) {
    throw new Error("API_KEY allows " + limit + " requests a minute but this run sends up to " + sent + "; lower the rate or let the script provision a key (ADMIN_URL, ADMIN_TOKEN)");
  }
}

/**
 * Pages to read and a calendar to add events to.
 * @param {WorkloadSettings} settings
 * @param {string} key
 */
function seed(settings, key) {
  const searchTerm = "k6seed" + runId();
  const headers = authHeaders(key);
  /** @type {string[]} */
  const pageIds = [];
  for (let i = 0; i < settings.seedPages; i += 1) {
    const body = { title: "Seeded " + searchTerm + " " + (i + 1), content: "# Seeded page\n\nRead by the load test; never changed." };
    const res = http.post(targetFor(settings.urls, i) + "/v1/new-page", JSON.stringify(body), { headers, tags: { name: "setup seed page" } });
    pageIds.push(expectCreated(res, "a page"));
  }
  const calendar = http.post(targetFor(settings.urls, 0) + "/api/calendar/calendars/", JSON.stringify({ name: settings.label + " " + searchTerm }), {
    headers,
    tags: { name: "setup seed calendar" },
  });
  return { pageIds, calendarId: expectCreated(calendar, "a calendar"), searchTerm };
}

/** Pages this VU created, the only ones it updates or deletes. */
/** @type {string[]} */
const ownPages = [];
let sequence = 0;

/**
 * @template T
 * @param {T[]} items
 * @returns {T}
 */
function any(items) {
  const item = items[Math.floor(Math.random() * items.length)];
  if (item === undefined) throw new Error("picked from an empty list");
  return item;
}

/**
 * @param {import("k6/http").RefinedResponse<undefined>} res
 * @returns {unknown}
 */
function bodyOf(res) {
  return parseJson(typeof res.body === "string" ? res.body : null);
}

/**
 * Performs one operation and checks its answer.
 * @param {WorkloadData} data
 * @param {import("./mix.js").Mix} mix
 * @param {Record<string, string>} [extraTags] e.g. the phase of a spike
 */
export function runOperation(data, mix, extraTags) {
  let operation = pickOperation(mix, Math.random());
  if ((operation === "pages.update" || operation === "pages.delete") && ownPages.length === 0) operation = "pages.create";
  sequence += 1;
  const base = targetFor(data.urls, exec.vu.idInTest + sequence);
  const headers = authHeaders(data.key);
  /** @param {string} name */
  const tagsFor = (name) => Object.assign({ name, op: operation }, extraTags || {});
  const checkTags = Object.assign({ op: operation }, extraTags || {});
  const label = "vu" + exec.vu.idInTest + "-" + sequence;

  /** @type {import("k6/http").RefinedResponse<undefined>} */
  let res;
  /** @type {Record<string, (r: import("k6/http").RefinedResponse<undefined>) => boolean>} */
  let checks;

  if (operation === "pages.list") {
    const sort = any(["updated_at", "created_at", "title"]);
    const order = any(["desc", "asc"]);
    res = http.get(base + "/v1/new-page?per_page=20&sort=" + sort + "&order=" + order, { headers, tags: tagsFor("GET /v1/new-page") });
    checks = { "pages.list: 200 with a page list": (r) => r.status === 200 && pageListProblems(bodyOf(r)).length === 0 };
  } else if (operation === "pages.search") {
    res = http.get(base + "/v1/new-page?per_page=10&title=" + encodeURIComponent(data.searchTerm), { headers, tags: tagsFor("GET /v1/new-page?title") });
    checks = {
      "pages.search: 200 with only matching pages": (r) => {
        const list = bodyOf(r);
        if (r.status !== 200 || pageListProblems(list).length > 0) return false;
        const items = /** @type {{ data: Array<{ title: string }> }} */ (list).data;
        return items.length > 0 && items.every((p) => p.title.toLowerCase().indexOf(data.searchTerm.toLowerCase()) !== -1);
      },
    };
  } else if (operation === "pages.get") {
    const id = any(data.pageIds);
    res = http.get(base + "/v1/new-page/" + id, { headers, tags: tagsFor("GET /v1/new-page/{id}") });
    checks = {
      "pages.get: 200 with the page asked for": (r) => {
        const page = bodyOf(r);
        return r.status === 200 && pageProblems(page).length === 0 && /** @type {{ id: string }} */ (page).id === id;
      },
    };
  } else if (operation === "pages.create") {
    const title = "Load test page " + label;
    res = http.post(base + "/v1/new-page", JSON.stringify({ title, content: "Created by k6 at " + new Date().toISOString() }), { headers, tags: tagsFor("POST /v1/new-page") });
    const page = bodyOf(res);
    const ok = res.status === 201 && pageProblems(page).length === 0;
    if (ok) {
      ownPages.push(/** @type {{ id: string }} */ (page).id);
      if (ownPages.length > 200) ownPages.shift();
    }
    checks = { "pages.create: 201 with the new page": () => ok && /** @type {{ title: string }} */ (page).title === title };
  } else if (operation === "pages.update") {
    const id = any(ownPages);
    const title = "Updated page " + label;
    res = http.put(base + "/v1/new-page/" + id, JSON.stringify({ title }), { headers, tags: tagsFor("PUT /v1/new-page/{id}") });
    checks = {
      "pages.update: 200 with the updated page": (r) => {
        const page = bodyOf(r);
        return r.status === 200 && pageProblems(page).length === 0 && /** @type {{ title: string }} */ (page).title === title;
      },
    };
  } else if (operation === "pages.delete") {
    const id = any(ownPages);
    ownPages.splice(ownPages.indexOf(id), 1);
    res = http.del(base + "/v1/new-page/" + id, null, { headers, tags: tagsFor("DELETE /v1/new-page/{id}") });
    checks = { "pages.delete: 204": (r) => r.status === 204 };
  } else if (operation === "calendars.list") {
    res = http.get(base + "/api/calendar/calendars/", { headers, tags: tagsFor("GET /api/calendar/calendars/") });
    checks = { "calendars.list: 200 with a calendar list": (r) => r.status === 200 && calendarListProblems(bodyOf(r)).length === 0 };
  } else if (operation === "events.list") {
    res = http.get(base + "/api/calendar/events/?per_page=20&calendar_id=" + data.calendarId, { headers, tags: tagsFor("GET /api/calendar/events/") });
    checks = { "events.list: 200 with an event list": (r) => r.status === 200 && eventListProblems(bodyOf(r)).length === 0 };
  } else {
    const startsAt = new Date(Date.now() + Math.floor(Math.random() * 30 * 24) * 3600 * 1000);
    startsAt.setUTCMinutes(0, 0, 0);
    const event = {
      calendar_id: data.calendarId,
      title: "Load test event " + label,
      starts_at: startsAt.toISOString(),
      ends_at: new Date(startsAt.getTime() + 3600 * 1000).toISOString(),
      location: "Room " + (1 + (sequence % 9)),
      reminder_minutes_before_start: 15,
      attendees: [{ email: "k6-" + label + "@example.com", name: "k6 attendee" }],
    };
    res = http.post(base + "/api/calendar/events/", JSON.stringify(event), { headers, tags: tagsFor("POST /api/calendar/events/") });
    checks = {
      "events.create: 201 with the new event": (r) => {
        const created = bodyOf(r);
        return r.status === 201 && eventProblems(created).length === 0 && /** @type {{ calendar_id: string }} */ (created).calendar_id === data.calendarId;
      },
    };
  }

  checks["rate-limit headers on the response"] = (r) => {
    const h = readRateLimitHeaders(r.headers);
    return h.missing.length === 0 && h.malformed.length === 0 && /** @type {number} */ (h.remaining) >= 0;
  };
  check(res, checks, checkTags);
  completed.add(1, checkTags);
}

/**
 * Deletes the workspace setup() provisioned. With API_KEY nothing was
 * provisioned, and the run's pages, calendar and events stay in the key's
 * workspace.
 * @param {WorkloadData} data
 * @param {import("./config.js").Credentials} credentials
 */
export function teardownWorkload(data, credentials) {
  if (data.workspace === null || credentials.mode !== "admin") return;
  deleteWorkspace({ adminUrl: credentials.adminUrl, adminToken: credentials.adminToken }, data.workspace);
}

/**
 * The summary outputs of a workload script: its settings, led by where it ran
 * and how its keys came, and the cleanup notes of its teardown.
 * @param {import("./summary.js").SummaryData} data
 * @param {{ script: string, urls: string[], credentials: import("./config.js").Credentials, settings: Record<string, unknown> }} run
 */
export function workloadSummary(data, run) {
  const keys = run.credentials.mode === "admin" ? "provisioned through " + run.credentials.adminUrl : "API_KEY";
  const settings = Object.assign({ base_urls: run.urls, keys: keys }, run.settings);
  return summaryOutputs(data, { script: run.script, settings: settings, notes: cleanupNotes(data.metrics) }, __ENV, new Date());
}

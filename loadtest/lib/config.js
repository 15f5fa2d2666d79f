// @ts-check
/**
 * Reading the scripts' environment. Takes the environment as an argument
 * (k6's __ENV, or process.env in tests), so it has no k6 imports. A bad value
 * throws an error naming the variable; thrown in k6's init context it stops
 * the run before any request is sent.
 */

/** @typedef {Record<string, string | undefined>} Env */

/**
 * @typedef {{ mode: "admin", adminUrl: string, adminToken: string }
 *   | { mode: "keys", keys: string[] }} Credentials
 */

/** @param {string} url */
function trimUrl(url) {
  return url.trim().replace(/\/+$/, "");
}

/** @param {string} url */
function isHttpUrl(url) {
  return /^https?:\/\/[^\s/]+/.test(url);
}

/**
 * The public base URLs to spread requests over: `BASE_URLS` (comma-separated,
 * one per gateway replica), else `BASE_URL`, else http://localhost:8080.
 * @param {Env} env
 * @returns {string[]}
 */
export function baseUrls(env) {
  const name = env.BASE_URLS ? "BASE_URLS" : "BASE_URL";
  const raw = env.BASE_URLS || env.BASE_URL || "http://localhost:8080";
  const urls = raw.split(",").map(trimUrl).filter((u) => u !== "");
  if (urls.length === 0) throw new Error(name + " names no URL");
  for (const url of urls) {
    if (!isHttpUrl(url)) throw new Error(name + ": " + JSON.stringify(url) + " is not an http(s) URL");
  }
  return urls;
}

/**
 * How the script gets its keys: `API_KEY` (one key, or several comma-separated)
 * wins when set; otherwise `ADMIN_TOKEN` (with `ADMIN_URL`, default
 * http://localhost:8081) provisions them in setup().
 * @param {Env} env
 * @returns {Credentials}
 */
export function credentials(env) {
  if (env.API_KEY && env.API_KEY.trim() !== "") {
    const keys = env.API_KEY.split(",").map((k) => k.trim()).filter((k) => k !== "");
    if (keys.length === 0) throw new Error("API_KEY names no key");
    return { mode: "keys", keys };
  }
  if (env.ADMIN_TOKEN && env.ADMIN_TOKEN.trim() !== "") {
    const adminUrl = trimUrl(env.ADMIN_URL || "http://localhost:8081");
    if (!isHttpUrl(adminUrl)) throw new Error("ADMIN_URL: " + JSON.stringify(env.ADMIN_URL) + " is not an http(s) URL");
    return { mode: "admin", adminUrl, adminToken: env.ADMIN_TOKEN.trim() };
  }
  throw new Error("Set API_KEY (npm start prints a demo key) or ADMIN_TOKEN and ADMIN_URL (to provision a workspace and keys)");
}

/**
 * @param {Env} env
 * @param {string} name
 * @param {number} fallback
 * @param {{ min?: number, max?: number }} [bounds]
 */
export function integerFrom(env, name, fallback, bounds) {
  const raw = env[name];
  const min = bounds && bounds.min !== undefined ? bounds.min : 0;
  const max = bounds && bounds.max !== undefined ? bounds.max : Number.MAX_SAFE_INTEGER;
  if (raw === undefined || raw.trim() === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new Error(name + ": " + JSON.stringify(raw) + " is not a whole number");
  const value = Number(raw.trim());
  if (value < min || value > max) throw new Error(name + ": " + value + " is outside " + min + " to " + max);
  return value;
}

/**
 * @param {Env} env
 * @param {string} name
 * @param {number} fallback
 * @param {{ min?: number, max?: number }} [bounds]
 */
export function numberFrom(env, name, fallback, bounds) {
  const raw = env[name];
  const min = bounds && bounds.min !== undefined ? bounds.min : 0;
  const max = bounds && bounds.max !== undefined ? bounds.max : Number.MAX_VALUE;
  if (raw === undefined || raw.trim() === "") return fallback;
  if (!/^\d+(\.\d+)?$/.test(raw.trim())) throw new Error(name + ": " + JSON.stringify(raw) + " is not a number");
  const value = Number(raw.trim());
  if (value < min || value > max) throw new Error(name + ": " + value + " is outside " + min + " to " + max);
  return value;
}

const DURATION_PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
const DURATION = /^(\d+(?:\.\d+)?(ms|s|m|h))+$/;
/** @type {Record<string, number>} */
const UNIT_SECONDS = { ms: 0.001, s: 1, m: 60, h: 3600 };

/**
 * A k6 duration ("90s", "1m30s", "2h") in seconds.
 * @param {string} text
 */
export function durationSeconds(text) {
  if (!DURATION.test(text)) throw new Error(JSON.stringify(text) + " is not a duration such as 30s, 5m or 1h30m");
  let total = 0;
  let match;
  DURATION_PART.lastIndex = 0;
  while ((match = DURATION_PART.exec(text)) !== null) total += Number(match[1]) * (UNIT_SECONDS[match[2] || "s"] || 0);
  return total;
}

/**
 * A k6 duration string from the environment, validated, with a bound so a typo
 * cannot start a run of days.
 * @param {Env} env
 * @param {string} name
 * @param {string} fallback
 * @param {number} [maxSeconds] default 24 h
 */
export function durationFrom(env, name, fallback, maxSeconds) {
  const raw = env[name];
  const text = raw === undefined || raw.trim() === "" ? fallback : raw.trim();
  let seconds;
  try {
    seconds = durationSeconds(text);
  } catch (e) {
    throw new Error(name + ": " + (e instanceof Error ? e.message : String(e)));
  }
  const limit = maxSeconds === undefined ? 86400 : maxSeconds;
  if (seconds < 1) throw new Error(name + ": " + text + " is shorter than 1s");
  if (seconds > limit) throw new Error(name + ": " + text + " is longer than " + limit + "s");
  return text;
}

/**
 * @param {Env} env
 * @param {string} name
 * @param {boolean} fallback
 */
export function booleanFrom(env, name, fallback) {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const text = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].indexOf(text) !== -1) return true;
  if (["0", "false", "no", "off"].indexOf(text) !== -1) return false;
  throw new Error(name + ": " + JSON.stringify(raw) + " is not true or false");
}

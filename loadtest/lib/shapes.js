// @ts-check
/**
 * Response shapes the load scripts hold every answer to (spec section 2,
 * contract sections 2-5). Each function returns the problems it found, empty
 * when the value has the shape. No k6 imports: bun tests run these too.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UTC_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
export const ATTENDEE_STATUSES = ["needs_action", "accepted", "declined", "tentative"];
export const MAX_PER_PAGE = 100;

/**
 * @param {string | null | undefined} text
 * @returns {unknown} the parsed value, or undefined when the text is not JSON
 */
export function parseJson(text) {
  if (typeof text !== "string" || text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (_) {
    return undefined;
  }
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** @param {unknown} value */
export function isUuid(value) {
  return typeof value === "string" && UUID.test(value);
}

/** @param {unknown} value */
export function isUtcTimestamp(value) {
  return typeof value === "string" && UTC_TIMESTAMP.test(value) && !isNaN(Date.parse(value));
}

/** @param {unknown} value */
function isNonNegativeInteger(value) {
  return typeof value === "number" && Math.floor(value) === value && value >= 0;
}

/**
 * @param {unknown} value
 * @returns {string[]}
 */
export function pageProblems(value) {
  if (!isObject(value)) return ["a page is not an object"];
  /** @type {string[]} */
  const problems = [];
  if (!isUuid(value.id)) problems.push("page id is not a UUID");
  if (typeof value.title !== "string" || value.title.trim() === "") problems.push("page title is not a non-blank string");
  if (typeof value.content !== "string") problems.push("page content is not a string");
  if (!isUtcTimestamp(value.created_at)) problems.push("page created_at is not an ISO 8601 UTC timestamp");
  if (!isUtcTimestamp(value.updated_at)) problems.push("page updated_at is not an ISO 8601 UTC timestamp");
  if (problems.length === 0 && Date.parse(String(value.updated_at)) < Date.parse(String(value.created_at))) {
    problems.push("page updated_at is before created_at");
  }
  if ("team_id" in value && value.team_id !== null && !isUuid(value.team_id)) problems.push("page team_id is neither null nor a UUID");
  return problems;
}

/**
 * The list envelope, with each item checked by `itemProblems`.
 * @param {unknown} value
 * @param {(item: unknown) => string[]} itemProblems
 * @returns {string[]}
 */
export function listProblems(value, itemProblems) {
  if (!isObject(value)) return ["a list is not an object"];
  /** @type {string[]} */
  const problems = [];
  if (!isNonNegativeInteger(value.total)) problems.push("list total is not a non-negative integer");
  if (!isNonNegativeInteger(value.page) || value.page === 0) problems.push("list page is not a positive integer");
  const perPage = value.per_page;
  if (!isNonNegativeInteger(perPage) || perPage === 0 || Number(perPage) > MAX_PER_PAGE) problems.push("list per_page is not an integer from 1 to " + MAX_PER_PAGE);
  if (!Array.isArray(value.data)) {
    problems.push("list data is not an array");
    return problems;
  }
  if (typeof perPage === "number" && value.data.length > perPage) problems.push("list data holds more items than per_page");
  for (let i = 0; i < value.data.length; i += 1) {
    const found = itemProblems(value.data[i]);
    if (found.length > 0) {
      problems.push("list item " + i + ": " + found[0]);
      break;
    }
  }
  return problems;
}

/** @param {unknown} value */
export function pageListProblems(value) {
  return listProblems(value, pageProblems);
}

/**
 * @param {unknown} value
 * @returns {string[]}
 */
export function attendeeProblems(value) {
  if (!isObject(value)) return ["an attendee is not an object"];
  /** @type {string[]} */
  const problems = [];
  if (value.email !== undefined && value.email !== null && (typeof value.email !== "string" || value.email.indexOf("@") < 1)) {
    problems.push("attendee email is not an email address");
  }
  if (value.name !== undefined && value.name !== null && typeof value.name !== "string") problems.push("attendee name is not a string");
  if (ATTENDEE_STATUSES.indexOf(String(value.status)) === -1) problems.push("attendee status is not one of " + ATTENDEE_STATUSES.join(", "));
  return problems;
}

/**
 * A calendar event (every field is present).
 * @param {unknown} value
 * @returns {string[]}
 */
export function eventProblems(value) {
  if (!isObject(value)) return ["an event is not an object"];
  /** @type {string[]} */
  const problems = [];
  if (!isUuid(value.id)) problems.push("event id is not a UUID");
  if (!isUuid(value.calendar_id)) problems.push("event calendar_id is not a UUID");
  if (!("title" in value) || (value.title !== null && typeof value.title !== "string")) problems.push("event title is missing or not a string");
  if (typeof value.starts_at !== "string" || isNaN(Date.parse(value.starts_at))) problems.push("event starts_at is not a date-time");
  if (typeof value.ends_at !== "string" || isNaN(Date.parse(value.ends_at))) problems.push("event ends_at is not a date-time");
  if (typeof value.is_all_day !== "boolean") problems.push("event is_all_day is not a boolean");
  for (const field of ["location", "conference_url"]) {
    if (!(field in value) || (value[field] !== null && typeof value[field] !== "string")) problems.push("event " + field + " is missing or not a string");
  }
  if (!Array.isArray(value.attendees)) {
    problems.push("event attendees is not an array");
  } else {
    for (const attendee of value.attendees) {
      const found = attendeeProblems(attendee);
      if (found.length > 0) {
        problems.push(found.join("; "));
        break;
      }
    }
  }
  return problems;
}

/** @param {unknown} value */
export function eventListProblems(value) {
  return listProblems(value, eventProblems);
}

/**
 * @param {unknown} value
 * @returns {string[]}
 */
export function calendarProblems(value) {
  if (!isObject(value)) return ["a calendar is not an object"];
  /** @type {string[]} */
  const problems = [];
  if (!isUuid(value.id)) problems.push("calendar id is not a UUID");
  if (typeof value.name !== "string") problems.push("calendar name is not a string");
  return problems;
}

/** @param {unknown} value */
export function calendarListProblems(value) {
  return listProblems(value, calendarProblems);
}

/**
 * The error object.
 * @param {unknown} value
 * @param {string} [expectedCode]
 * @returns {string[]}
 */
export function errorBodyProblems(value, expectedCode) {
  if (!isObject(value) || !isObject(value.error)) return ["the body is not an error object"];
  /** @type {string[]} */
  const problems = [];
  const error = value.error;
  if (typeof error.code !== "string") problems.push("error.code is not a string");
  else if (expectedCode !== undefined && error.code !== expectedCode) problems.push("error.code is " + error.code + ", expected " + expectedCode);
  if (typeof error.message !== "string") problems.push("error.message is not a string");
  if (error.details !== undefined && error.details !== null && !isObject(error.details)) problems.push("error.details is not an object");
  return problems;
}

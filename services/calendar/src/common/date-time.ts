import { ApiError, rfc3339Instant } from "@ws/shared";

/**
 * The instant an RFC 3339 date-time names, to the millisecond (the precision
 * answered); a leap second rolls forward to the next minute. The schema has
 * already checked the text; what it cannot check is that the instant, once in
 * UTC, lies in years 0001 to 9999, which both Postgres and the `Z` form of
 * ISO 8601 need.
 */
export function parseInstant(value: string, field: string): Date {
  const date = rfc3339Instant(value);
  if (!date) throw ApiError.badRequest(`${field} is not a valid RFC 3339 date-time.`, [field], "format");
  const utcYear = date.getUTCFullYear();
  if (utcYear < 1 || utcYear > 9999) {
    throw ApiError.badRequest(`${field} must lie between years 0001 and 9999 in UTC.`, [field], "range");
  }
  return date;
}

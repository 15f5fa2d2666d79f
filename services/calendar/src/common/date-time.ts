import { ApiError } from "@ws/shared";

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * The instant an RFC 3339 date-time names, to the millisecond (the precision
 * answered). The schema has already checked the shape; what it cannot check is
 * that the instant, once in UTC, lies in years 0001 to 9999, which both
 * Postgres and the `Z` form of ISO 8601 need.
 */
export function parseInstant(value: string, field: string): Date {
  const match = RFC3339.exec(value);
  if (!match) throw ApiError.badRequest(`${field} is not an RFC 3339 date-time.`, [field], "format");
  const [, year, month, day, hour, minute, second, fraction = "", zulu, sign, offsetHours, offsetMinutes] = match;
  const [y, mo, d, h, mi, sec] = [year, month, day, hour, minute, second].map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(2000, mo, 0)).getUTCDate() - (mo === 2 && !isLeapYear(y) ? 1 : 0);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth || h > 23 || mi > 59 || sec > 59) {
    throw ApiError.badRequest(`${field} is not a valid date-time.`, [field], "format");
  }
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, sec, Number(fraction.padEnd(3, "0").slice(0, 3)));
  if (!zulu) {
    const offset = (Number(offsetHours) * 60 + Number(offsetMinutes)) * (sign === "-" ? -1 : 1);
    date.setTime(date.getTime() - offset * 60_000);
  }
  const utcYear = date.getUTCFullYear();
  if (Number.isNaN(date.getTime()) || utcYear < 1 || utcYear > 9999) {
    throw ApiError.badRequest(`${field} must lie between years 0001 and 9999 in UTC.`, [field], "range");
  }
  return date;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

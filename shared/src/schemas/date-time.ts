import { FormatRegistry } from "@sinclair/typebox";

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function daysIn(year: number, month: number): number {
  return [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/**
 * The instant an RFC 3339 date-time names, to the millisecond, or null when the
 * text is not one. A leap second (`23:59:60` in UTC, as RFC 3339 allows) is
 * accepted and rolled forward to the first instant of the next minute, the way
 * PostgreSQL and POSIX time read it: `2016-12-31T23:59:60.5Z` is
 * `2017-01-01T00:00:00.500Z`, so order against the neighbouring seconds is kept.
 */
export function rfc3339Instant(value: string): Date | null {
  const match = RFC3339.exec(value);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction = "", zulu, sign, offsetHours, offsetMinutes] = match;
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number) as [number, number, number, number, number, number];
  const offset = zulu ? 0 : (Number(offsetHours) * 60 + Number(offsetMinutes)) * (sign === "-" ? -1 : 1);
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 60) return null;
  if (!zulu && (Number(offsetHours) > 23 || Number(offsetMinutes) > 59)) return null;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, Math.min(s, 59), Number(fraction.padEnd(3, "0").slice(0, 3)));
  date.setTime(date.getTime() - offset * 60_000);
  if (s === 60) {
    // A leap second only ends a UTC day.
    if (date.getUTCHours() !== 23 || date.getUTCMinutes() !== 59) return null;
    date.setTime(date.getTime() + 1000);
  }
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * Makes the schema format `date-time` mean RFC 3339 exactly: Elysia's own check
 * also takes JavaScript's date strings and refuses leap seconds.
 */
export function registerDateTimeFormat(): void {
  FormatRegistry.Set("date-time", (value) => rfc3339Instant(value) !== null);
}

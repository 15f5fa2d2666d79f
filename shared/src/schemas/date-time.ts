import { FormatRegistry } from "@sinclair/typebox";

/** The number that `count` ASCII digits at `start` spell, or -1 when any is not a digit. */
function digitsAt(value: string, start: number, count: number): number {
  let number = 0;
  for (let i = start; i < start + count; i++) {
    const digit = value.charCodeAt(i) - 48;
    if (!(digit >= 0 && digit <= 9)) return -1;
    number = number * 10 + digit;
  }
  return number;
}

const SEPARATORS = [[4, "-"], [7, "-"], [13, ":"], [16, ":"]] as const;

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/**
 * Date.UTC reads the years 0 to 99 as 1900 to 1999. Four hundred Gregorian
 * years later every date falls on the same day of the week and the calendar
 * repeats, exactly this many milliseconds later, so counting from there avoids
 * the special case without building a Date to call setUTCFullYear on.
 */
const FOUR_CENTURIES_MS = 146_097 * 86_400_000;

/**
 * The instant an RFC 3339 date-time names, to the millisecond, or null when the
 * text is not one. A leap second (`23:59:60` in UTC, as RFC 3339 allows) is
 * accepted and rolled forward to the first instant of the next minute, the way
 * PostgreSQL and POSIX time read it: `2016-12-31T23:59:60.5Z` is
 * `2017-01-01T00:00:00.500Z`, so order against the neighbouring seconds is kept.
 * Every answer's timestamps pass through here (the `date-time` format), so it
 * reads the text by position and computes the instant in one arithmetic step.
 */
export function rfc3339Instant(value: string): Date | null {
  // YYYY-MM-DDTHH:MM:SS, then an optional fraction, then Z or ±HH:MM; read by position, without a regular expression.
  if (value.length < 20) return null;
  for (const [at, separator] of SEPARATORS) if (value[at] !== separator) return null;
  const t = value[10];
  if (t !== "T" && t !== "t" && t !== " ") return null;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 2);
  const day = digitsAt(value, 8, 2);
  const hour = digitsAt(value, 11, 2);
  const minute = digitsAt(value, 14, 2);
  const second = digitsAt(value, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) {
    return null;
  }
  let at = 19;
  let milliseconds = 0;
  if (value[at] === ".") {
    const fractionStart = ++at;
    while (at < value.length && digitsAt(value, at, 1) >= 0) at++;
    const fractionDigits = at - fractionStart;
    if (fractionDigits === 0) return null;
    const kept = Math.min(fractionDigits, 3);
    milliseconds = digitsAt(value, fractionStart, kept) * 10 ** (3 - kept);
  }
  let offsetMinutes = 0;
  const zone = value[at];
  if (zone === "Z" || zone === "z") {
    if (at + 1 !== value.length) return null;
  } else if (zone === "+" || zone === "-") {
    if (at + 6 !== value.length || value[at + 3] !== ":") return null;
    const offsetHours = digitsAt(value, at + 1, 2);
    const offsetRest = digitsAt(value, at + 4, 2);
    if (offsetHours < 0 || offsetHours > 23 || offsetRest < 0 || offsetRest > 59) return null;
    offsetMinutes = (offsetHours * 60 + offsetRest) * (zone === "-" ? -1 : 1);
  } else return null;
  let time = Date.UTC(year + 400, month - 1, day, hour, minute, Math.min(second, 59), milliseconds) - FOUR_CENTURIES_MS - offsetMinutes * 60_000;
  if (second === 60) {
    // A leap second only ends a UTC day.
    const utc = new Date(time);
    if (utc.getUTCHours() !== 23 || utc.getUTCMinutes() !== 59) return null;
    time += 1000;
  }
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * Makes the schema format `date-time` mean RFC 3339 exactly: Elysia's own check
 * also takes JavaScript's date strings and refuses leap seconds.
 */
export function registerDateTimeFormat(): void {
  FormatRegistry.Set("date-time", (value) => rfc3339Instant(value) !== null);
}

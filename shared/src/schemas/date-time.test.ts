import { describe, expect, test } from "bun:test";
import { rfc3339Instant } from "./date-time";

describe("RFC 3339 date-times", () => {
  test("when a leap second ends a UTC day, then it is accepted and rolled forward to the next minute's first instant", () => {
    expect(rfc3339Instant("2016-12-31T23:59:60Z")?.toISOString()).toBe("2017-01-01T00:00:00.000Z");
    expect(rfc3339Instant("2016-12-31T23:59:60.5Z")?.toISOString()).toBe("2017-01-01T00:00:00.500Z");
    expect(rfc3339Instant("2017-01-01T00:59:60+01:00")?.toISOString()).toBe("2017-01-01T00:00:00.000Z");
  });

  test("when second 60 is not the end of a UTC day, or a field is out of range, then it is no date-time", () => {
    for (const text of ["2016-12-31T12:00:60Z", "2016-12-31T23:59:60+01:00", "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:00:00", "2026-01-01", "Thu, 01 Jan 2026 00:00:00 GMT"]) {
      expect(rfc3339Instant(text)).toBeNull();
    }
  });

  test("when an offset is given, then the instant is in UTC", () => {
    expect(rfc3339Instant("2026-03-02T10:00:00+01:00")?.toISOString()).toBe("2026-03-02T09:00:00.000Z");
    expect(rfc3339Instant("2024-02-29t10:00:00.123456-02:30")?.toISOString()).toBe("2024-02-29T12:30:00.123Z");
  });
});

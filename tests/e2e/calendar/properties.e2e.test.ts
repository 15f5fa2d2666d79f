import { beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { isErrorObject } from "../../harness/http";
import { calendarTenant, type Call } from "./helpers";

let call: Call;
let calendarId: string;

beforeAll(async () => {
  ({ call, calendarId } = await calendarTenant());
});

const text = fc.oneof(fc.string(), fc.string({ unit: "grapheme", maxLength: 40 }), fc.string({ unit: "binary", maxLength: 10 }));

function offsetText(minutes: number): string {
  if (minutes === 0) return "Z";
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/** An RFC 3339 rendering of an instant at a random offset (and random fraction precision). */
const dateTime = fc
  .tuple(
    fc.date({ min: new Date("0001-01-02T00:00:00Z"), max: new Date("9999-12-30T00:00:00Z"), noInvalidDate: true }),
    fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }),
    fc.constantFrom(0, 1, 3, 6),
  )
  .map(([date, offset, digits]) => {
    const local = new Date(date.getTime() + offset * 60_000).toISOString();
    const fraction = digits === 0 ? "" : `.${local.slice(20, 23).padEnd(digits, "0")}`;
    return `${local.slice(0, 19)}${fraction}${offsetText(offset)}`;
  });

const attendee = fc.record(
  {
    email: fc.oneof(fc.emailAddress(), text),
    name: text,
    status: fc.oneof(fc.constantFrom("needs_action", "accepted", "declined", "tentative"), text),
  },
  { requiredKeys: [] },
);

function eventArbitrary() {
  return fc.record(
    {
      calendar_id: fc.oneof({ weight: 6, arbitrary: fc.constant(calendarId) }, { weight: 1, arbitrary: fc.uuid() }, { weight: 1, arbitrary: text }),
      title: fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: fc.anything() }),
      starts_at: fc.oneof({ weight: 8, arbitrary: dateTime }, { weight: 1, arbitrary: fc.anything() }),
      ends_at: fc.oneof({ weight: 8, arbitrary: dateTime }, { weight: 1, arbitrary: fc.anything() }),
      is_all_day: fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.anything() }),
      location: text,
      conference_url: fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), text),
      notes: text,
      reminder_minutes_before_start: fc.oneof(fc.integer({ min: -5, max: 10_090 }), fc.double(), fc.anything()),
      attendees: fc.oneof({ weight: 6, arbitrary: fc.array(attendee, { maxLength: 5 }) }, { weight: 1, arbitrary: fc.anything() }),
    },
    { requiredKeys: [] },
  );
}

/**
 * Bodies the API must accept. Mixed into the arbitrary ones, so the read-back below
 * checks many events: on their own, the arbitrary bodies are almost never all valid.
 */
function validEventArbitrary() {
  return fc
    .record({
      starts: dateTime,
      minutes: fc.integer({ min: 0, max: 24 * 60 }),
      title: fc.string({ unit: "grapheme-ascii", maxLength: 40 }),
      reminder: fc.integer({ min: 0, max: 10_080 }),
    })
    .map(({ starts, minutes, title, reminder }) => {
      const endsAt = new Date(new Date(starts.replace(/(\.\d{3})\d+/, "$1")).getTime() + minutes * 60_000);
      return { calendar_id: calendarId, starts_at: starts, ends_at: endsAt.toISOString(), title, reminder_minutes_before_start: reminder } as Record<string, unknown>;
    });
}

describe("POST /api/calendar/events/ over generated bodies", () => {
  test("when any body is sent, then no 5xx, every failure is the error object, and every 201 reads back identically", async () => {
    const created: Record<string, unknown>[] = [];
    await fc.assert(
      fc.asyncProperty(fc.oneof(eventArbitrary(), validEventArbitrary()), async (body) => {
        const response = await call("POST", "/api/calendar/events/", body);
        expect(response.status).toBeLessThan(500);
        if (response.status === 201) {
          created.push(response.body);
          expect(response.body.calendar_id).toBe(calendarId);
          expect(new Date(response.body.ends_at) >= new Date(response.body.starts_at)).toBe(true);
        } else {
          expect([400, 404, 422]).toContain(response.status);
          expect(isErrorObject(response.body)).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
    expect(created.length).toBeGreaterThan(0);
    const listed: Record<string, unknown>[] = [];
    for (let page = 1; ; page++) {
      const response = await call("GET", `/api/calendar/events/?calendar_id=${calendarId}&per_page=100&page=${page}`);
      expect(response.status).toBe(200);
      if (response.body.data.length === 0) break;
      listed.push(...response.body.data);
    }
    expect(listed).toHaveLength(created.length);
    const byId = new Map(listed.map((event) => [event.id, event]));
    for (const event of created) expect(byId.get(event.id)).toEqual(event);
  });

  test("when the whole body is arbitrary JSON, then no 5xx and every answer is the error object or a 201", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const response = await call("POST", "/api/calendar/events/", JSON.stringify(value));
        expect(response.status).toBeLessThan(500);
        if (response.status !== 201) expect(isErrorObject(response.body)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  test("when valid bodies are generated, then each is accepted with its values in UTC", async () => {
    await fc.assert(
      fc.asyncProperty(dateTime, fc.integer({ min: 0, max: 10 * 24 * 60 }), fc.integer({ min: 0, max: 10_080 }), async (starts, minutes, reminder) => {
        const startsAt = new Date(starts.replace(/(\.\d{3})\d+/, "$1"));
        const endsAt = new Date(startsAt.getTime() + minutes * 60_000);
        fc.pre(endsAt.getUTCFullYear() <= 9999);
        const response = await call("POST", "/api/calendar/events/", {
          calendar_id: calendarId,
          starts_at: starts,
          ends_at: endsAt.toISOString(),
          reminder_minutes_before_start: reminder,
        });
        expect(response.status).toBe(201);
        expect(response.body.starts_at).toBe(startsAt.toISOString());
        expect(response.body.ends_at).toBe(endsAt.toISOString());
        expect(response.body.reminder_minutes_before_start).toBe(reminder);
      }),
      { numRuns: 50 },
    );
  });
});

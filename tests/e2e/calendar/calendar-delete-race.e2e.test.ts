import { describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import type { ApiResponse } from "../../harness/http";
import { calendarTenant, eventBody } from "./helpers";

const CALENDARS = "/api/calendar/calendars";
const EVENTS = "/api/calendar/events";
// Enough to land writes on both sides of the delete most rounds, few enough to stay quick.
const ROUNDS = 10;
const WRITERS = 20;

/** Each answer is the write's success, or what it would be after the delete: the calendar's 404. */
function expectWrittenOrNotFound(answers: ApiResponse[], written: number): void {
  for (const answer of answers) {
    if (answer.status === written) continue;
    expectError(answer, 404, "not_found");
  }
}

describe("writes into a calendar while it is deleted", () => {
  test("when events are created while their calendar is deleted, then each is 201 or 404 not_found, never a 5xx", async () => {
    const { call } = await calendarTenant();
    for (let round = 0; round < ROUNDS; round++) {
      const doomed = (await call("POST", CALENDARS, { name: `doomed ${round}` })).body.id;
      const creates = Array.from({ length: WRITERS }, () => call("POST", EVENTS, eventBody(doomed)));
      const deleted = call("DELETE", `${CALENDARS}/${doomed}`);
      expectWrittenOrNotFound(await Promise.all(creates), 201);
      expect((await deleted).status).toBe(204);
    }
    // Nothing created on either side of a delete outlives its calendar.
    expect((await call("GET", EVENTS)).body.data).toEqual([]);
  });

  test("when events are moved into a calendar while it is deleted, then each is 200 or 404 not_found, never a 5xx", async () => {
    const { call, calendarId } = await calendarTenant();
    for (let round = 0; round < ROUNDS; round++) {
      const doomed = (await call("POST", CALENDARS, { name: `doomed ${round}` })).body.id;
      const ids = await Promise.all(Array.from({ length: WRITERS }, async () => (await call("POST", EVENTS, eventBody(calendarId))).body.id));
      const moves = ids.map((id) => call("PUT", `${EVENTS}/${id}`, { calendar_id: doomed }));
      const deleted = call("DELETE", `${CALENDARS}/${doomed}`);
      const answers = await Promise.all(moves);
      expectWrittenOrNotFound(answers, 200);
      expect((await deleted).status).toBe(204);
      // A move refused stays where it was; one made before the delete went with the calendar.
      for (const [index, answer] of answers.entries()) {
        const read = await call("GET", `${EVENTS}/${ids[index]}`);
        if (answer.status === 200) expectError(read, 404, "not_found");
        else expect(read.body.calendar_id).toBe(calendarId);
      }
    }
  });
});

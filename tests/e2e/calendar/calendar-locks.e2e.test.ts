import { describe, expect, test } from "bun:test";
import postgres from "postgres";
import { sharedSystem } from "../../harness/system";
import { calendarTenant, eventBody } from "./helpers";

const CALENDARS = "/api/calendar/calendars";
const EVENTS = "/api/calendar/events";
const onPostgres = Boolean(process.env.DATABASE_URL);

/**
 * Holds the calendar's row as an event being written into it holds it (FOR KEY
 * SHARE), in a transaction of the test's own, while `during` runs.
 */
async function whileEventIsWritten<T>(databaseUrl: string, calendarId: string, during: () => Promise<T>): Promise<T> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  let release!: () => void;
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const transaction = sql.begin(async (tx) => {
    await tx`select 1 from calendars where id = ${calendarId} for key share`;
    locked();
    await new Promise<void>((resolve) => (release = resolve));
  });
  try {
    await isLocked;
    return await during();
  } finally {
    release();
    await transaction;
    await sql.end();
  }
}

describe.skipIf(!onPostgres)("what a calendar's writes wait for", () => {
  test("when an event is being written into a calendar, then renaming the calendar does not wait for it", async () => {
    const { databaseUrl } = await sharedSystem();
    const { call, calendarId } = await calendarTenant();
    const renamed = await whileEventIsWritten(databaseUrl!, calendarId, () =>
      Promise.race([call("PUT", `${CALENDARS}/${calendarId}`, { name: "Renamed" }), Bun.sleep(3000).then(() => "still waiting")]),
    );
    expect(typeof renamed === "string" ? renamed : renamed.status).toBe(200);
    expect((await call("GET", `${CALENDARS}/${calendarId}`)).body.name).toBe("Renamed");
  });

  test("when an event is being written into a calendar, then deleting the calendar waits until it is written", async () => {
    const { databaseUrl } = await sharedSystem();
    const { call, calendarId } = await calendarTenant();
    const deleted = await whileEventIsWritten(databaseUrl!, calendarId, () =>
      Promise.race([call("DELETE", `${CALENDARS}/${calendarId}`).then(() => "deleted"), Bun.sleep(500).then(() => "still waiting")]),
    );
    expect(deleted).toBe("still waiting");
    // Once the write's transaction ended, the delete went through.
    for (let i = 0; i < 50 && (await call("GET", `${CALENDARS}/${calendarId}`)).status !== 404; i++) await Bun.sleep(100);
    expect((await call("GET", `${CALENDARS}/${calendarId}`)).status).toBe(404);
    expect((await call("POST", EVENTS, eventBody(calendarId))).status).toBe(404);
  });
});

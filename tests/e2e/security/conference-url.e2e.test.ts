import { beforeAll, describe, expect, test } from "bun:test";
import { expectErrorNaming } from "../../harness/assertions";
import { calendarTenant, eventBody, type Call } from "../calendar/helpers";

let call: Call;
let calendarId: string;
beforeAll(async () => {
  ({ call, calendarId } = await calendarTenant());
});

const create = (conferenceUrl: unknown) => call("POST", "/api/calendar/events", eventBody(calendarId, { conference_url: conferenceUrl }));

describe("conference_url is a web link", () => {
  // Each of these is a well-formed URI that a calendar client would offer as a link to click.
  test.each([
    "javascript:alert(document.cookie)",
    "JAVASCRIPT:alert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "file:///etc/passwd",
    "ftp://files.example.com/agenda",
    "mailto:ada@example.com",
    "vbscript:msgbox(1)",
    "https:/meet.example.com",
    "https://",
    "http:///path-only",
  ])("when it is %p, then 400 names conference_url", async (url) => {
    expectErrorNaming(await create(url), 400, "bad_request", ["conference_url"]);
  });

  test.each(["https://meet.example.com/abc-defg", "http://10.0.0.5:8080/room?id=1#x", "HTTPS://MEET.EXAMPLE.COM/ABC"])(
    "when it is the http(s) link %p, then the event is created with it",
    async (url) => {
      const response = await create(url);
      expect(response.status).toBe(201);
      expect(response.body.conference_url).toBe(url);
    },
  );
});

import { describe, expect, test } from "bun:test";
import { CHROMIUM, hasChromium, renderDocsPage } from "../../harness/docs-browser";
import { sharedSystem } from "../../harness/system";

if (!hasChromium) console.warn(`Skipping the /docs browser test: ${CHROMIUM} is absent (install it with: apt-get install -y chromium).`);

describe("the documentation page in headless Chromium", () => {
  test.skipIf(!hasChromium)("when /docs is opened, then the operations are listed and no request fails", async () => {
    const system = await sharedSystem();
    const { paths, text, failures, requested } = await renderDocsPage(`${system.baseUrl}/docs`);
    expect(paths).toEqual(expect.arrayContaining(["/v1/new-page", "/v1/new-page/{id}", "/api/calendar/events", "/api/calendar/calendars"]));
    for (const summary of ["List pages", "Create a page", "Get a page", "Update a page", "Delete a page", "Create a calendar event"]) {
      expect(text).toContain(summary);
    }
    expect(failures).toEqual([]);
    const origin = new URL(system.baseUrl).origin;
    expect(requested.filter((url) => !url.startsWith(origin) && !url.startsWith("data:"))).toEqual([]);
  });
});

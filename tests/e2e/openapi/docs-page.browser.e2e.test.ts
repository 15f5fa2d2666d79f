import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { sharedSystem } from "../../harness/system";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`Skipping the /docs browser test: ${CHROMIUM} is absent (install it with: apt-get install -y chromium).`);

describe("the documentation page in headless Chromium", () => {
  test.skipIf(!hasChromium)("when /docs is opened, then the operations are listed and no request fails", async () => {
    const { chromium } = await import("playwright-core");
    const system = await sharedSystem();
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    try {
      const page = await browser.newPage();
      const failures: string[] = [];
      const requested: string[] = [];
      page.on("request", (request) => requested.push(request.url()));
      page.on("requestfailed", (request) => failures.push(`${request.url()} failed: ${request.failure()?.errorText}`));
      page.on("response", (response) => {
        if (response.status() >= 400) failures.push(`${response.url()} answered ${response.status()}`);
      });
      page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));

      await page.goto(`${system.baseUrl}/docs`, { waitUntil: "networkidle" });
      await page.waitForSelector(".opblock-summary-path", { timeout: 30_000 });
      const paths = await page.locator(".opblock-summary-path").allTextContents();
      const text = await page.locator("#swagger-ui").innerText();

      expect(paths.map((path) => path.replace(/\u200b/g, ""))).toEqual(
        expect.arrayContaining(["/v1/new-page", "/v1/new-page/{id}", "/api/calendar/events", "/api/calendar/calendars"]),
      );
      for (const summary of ["List pages", "Create a page", "Get a page", "Update a page", "Delete a page", "Create a calendar event"]) {
        expect(text).toContain(summary);
      }
      expect(failures).toEqual([]);
      const origin = new URL(system.baseUrl).origin;
      expect(requested.filter((url) => !url.startsWith(origin) && !url.startsWith("data:"))).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});

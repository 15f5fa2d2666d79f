import { existsSync } from "node:fs";

export const CHROMIUM = "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);

export interface RenderedDocs {
  /** The operation paths Swagger UI lists. */
  paths: string[];
  text: string;
  /** Requests that failed or answered 4xx/5xx, and page errors. */
  failures: string[];
  /** Every URL the page asked for. */
  requested: string[];
}

/** Opens a docs page in headless Chromium and waits until Swagger UI has listed the operations. */
export async function renderDocsPage(url: string): Promise<RenderedDocs> {
  const { chromium } = await import("playwright-core");
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
    await page.goto(url, { waitUntil: "networkidle" });
    await page.waitForSelector(".opblock-summary-path", { timeout: 30_000 });
    const paths = (await page.locator(".opblock-summary-path").allTextContents()).map((path) => path.replace(/\u200b/g, ""));
    const text = await page.locator("#swagger-ui").innerText();
    return { paths, text, failures, requested };
  } finally {
    await browser.close();
  }
}

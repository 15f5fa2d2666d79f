import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { sharedSystem } from "../../harness/system";

/** scripts/smoke-check.ts is what `helm test` runs against the gateway's Service. */
async function smokeCheck(url: string, waitSeconds = "5"): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "../../../scripts/smoke-check.ts"), url, waitSeconds], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { exitCode, stdout, stderr };
}

describe("the helm test's smoke check", () => {
  test("when it runs against a ready gateway, then /readyz answers 200 and an API call without a key the JSON 401, and it exits 0", async () => {
    const system = await sharedSystem();
    const result = await smokeCheck(system.baseUrl);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('"code":"missing_token"');
  });

  test("when the URL is not the public API (the internal port), then the 401 check fails and it exits 1 naming why", async () => {
    const system = await sharedSystem();
    const result = await smokeCheck(system.adminUrl);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("status 404, expected 401");
  });

  test("when nothing listens, then it gives up after the wait and exits 1", async () => {
    const result = await smokeCheck("http://127.0.0.1:9", "1");
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("did not answer 200 within 1 s");
  });
});

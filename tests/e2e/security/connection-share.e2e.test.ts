import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { TEST_RUNTIME } from "../../harness/system";

const FIXTURE = fileURLToPath(new URL("./connection-share.fixture.ts", import.meta.url));

/**
 * The gateway keeps at most half of its open-files limit after 1,024 as
 * connections a listener (64 at least): under `ulimit -n 1100` that is 64, few
 * enough to reach. The fixture starts the real system under that limit.
 */
function runUnderLowFileLimit(): { flood: string[]; other: string } {
  const run = spawnSync("sh", ["-c", `ulimit -n 1100 && exec "${process.execPath}" "${FIXTURE}"`], { env: process.env, encoding: "utf8", timeout: 150_000 });
  const line = run.stdout.split("\n").find((text) => text.startsWith("{"));
  if (!line) throw new Error(`the fixture printed no result (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(line);
}

// On Deno the gateway's listener is Deno.serve, which keeps connections by its own rules.
describe.skipIf(TEST_RUNTIME === "deno")("one client's connections when the gateway's run out", () => {
  test("when one client keeps every connection open after its answers, then its own newcomers are refused 503 and another client's request is still served", () => {
    const { flood, other } = runUnderLowFileLimit();
    const counts: Record<string, number> = {};
    for (const status of flood) counts[status] = (counts[status] ?? 0) + 1;
    // 64 connections at most, one of them lingering past the cap for an instant: the rest of its 80 are refused.
    expect(counts["401"]).toBeGreaterThanOrEqual(60);
    expect(counts["503"]).toBeGreaterThanOrEqual(10);
    expect(counts["401"]! + counts["503"]!).toBe(80);
    expect(other).toBe("401");
  }, 180_000);
});

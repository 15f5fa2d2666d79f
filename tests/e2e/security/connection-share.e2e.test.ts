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
function runUnderLowFileLimit(): { flood: string[]; other: string; descriptorsBefore: number; descriptorsMost: number } {
  const run = spawnSync("sh", ["-c", `ulimit -n 1100 && exec "${process.execPath}" "${FIXTURE}"`], { env: process.env, encoding: "utf8", timeout: 150_000 });
  const line = run.stdout.split("\n").find((text) => text.startsWith("{"));
  if (!line) throw new Error(`the fixture printed no result (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(line);
}

// On Deno the gateway's listener is Deno.serve, which keeps connections by its own rules.
describe.skipIf(TEST_RUNTIME === "deno")("clients' connections when the gateway's run out", () => {
  test("when clients keep their connections open after their answers, then each newcomer closes the oldest of those and is served, another client too, and the gateway's file descriptors stay within its cap", () => {
    const { flood, other, descriptorsBefore, descriptorsMost } = runUnderLowFileLimit();
    // 400 connections over a cap of 64, from four clients within their shares: every one answered.
    expect(flood.filter((status) => status === "401")).toHaveLength(400);
    expect(other).toBe("401");
    // The cap (64) and its slack (16): refused or lingering connections no longer hold descriptors past it.
    expect(descriptorsMost - descriptorsBefore).toBeLessThanOrEqual(64 + 16);
  }, 180_000);
});

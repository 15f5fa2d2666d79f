import { beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const FIXTURE = fileURLToPath(new URL("./connection-share.fixture.ts", import.meta.url));

/**
 * The gateway keeps at most half of its open-files limit after 1,024 as
 * connections a listener (64 at least): under `ulimit -n 1100` that is 64, few
 * enough to reach. The fixture starts the real system under that limit.
 */
interface Outcome {
  lingering: string[];
  othersAfterLingering: string[];
  dropping: string[];
  othersAfterDropping: string[];
  descriptorsBefore: number;
  descriptorsMost: number;
}

function runUnderLowFileLimit(): Outcome {
  const run = spawnSync("sh", ["-c", `ulimit -n 1100 && exec "${process.execPath}" "${FIXTURE}"`], { env: process.env, encoding: "utf8", timeout: 150_000 });
  const line = run.stdout.split("\n").find((text) => text.startsWith("{"));
  if (!line) throw new Error(`the fixture printed no result (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(line);
}

describe("clients' connections when the gateway's run out", () => {
  let outcome: Outcome;
  beforeAll(() => {
    outcome = runUnderLowFileLimit();
  }, 180_000);

  test("when four clients each keep their share of connections open after their answers, then another client is still served", () => {
    expect(outcome.lingering.filter((status) => status === "401")).toHaveLength(64);
    expect(outcome.othersAfterLingering).toEqual(["401", "401", "401", "401", "401"]);
  });

  test("when a client fills the connections with bodies it never sends, then another client is still served", () => {
    expect(outcome.dropping.filter((status) => status === "401")).toHaveLength(100);
    expect(outcome.othersAfterDropping).toEqual(["401", "401", "401", "401", "401"]);
  });

  test("when clients hold connections open, then the gateway's file descriptors stay within its cap (64) and its slack (16)", () => {
    expect(outcome.descriptorsMost - outcome.descriptorsBefore).toBeLessThanOrEqual(64 + 16);
  });
});

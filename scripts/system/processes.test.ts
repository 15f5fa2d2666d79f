import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { BUN_FLAGS, commandFor, REPO_ROOT } from "./processes";

describe("how processes are started", () => {
  test("when the launcher starts the gateway on Bun, then it uses the same flags as npm run start:gateway", () => {
    const script = JSON.parse(readFileSync(`${REPO_ROOT}package.json`, "utf8")).scripts["start:gateway"] as string;
    expect(script).toBe(["bun", ...BUN_FLAGS.gateway, "gateway/src/main.bun.ts"].join(" "));
    expect(commandFor("gateway", "bun").slice(1, -1)).toEqual(BUN_FLAGS.gateway);
  });
});

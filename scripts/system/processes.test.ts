import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { PARSER_MAX_HEADER_BYTES } from "@ws/shared";
import { BUN_SETTINGS, commandFor, REPO_ROOT, runtimeEnv, type ProcessName } from "./processes";

const scripts = JSON.parse(readFileSync(`${REPO_ROOT}package.json`, "utf8")).scripts as Record<string, string>;
const entries: Record<ProcessName, string> = {
  gateway: "gateway/src/main.bun.ts",
  pages: "services/pages/src/main.bun.ts",
  calendar: "services/calendar/src/main.bun.ts",
};

describe("how processes are started", () => {
  for (const process of ["gateway", "pages", "calendar"] as const) {
    test(`when the launcher starts ${process} on Bun, then it uses the same variables and flags as npm run start:${process}`, () => {
      const { env, flags } = BUN_SETTINGS[process];
      const expected = [...Object.entries(env).map(([name, value]) => `${name}=${value}`), "bun", ...flags, entries[process]].join(" ");
      expect(scripts[`start:${process}`]).toBe(expected);
      expect(commandFor(process, "bun").slice(1, -1)).toEqual(flags);
      expect(runtimeEnv(process, "bun")).toEqual(env);
    });

    test(`when ${process} starts on Bun, then its HTTP parser takes the headers every process agrees on`, () => {
      expect(BUN_SETTINGS[process].flags).toContain(`--max-http-header-size=${PARSER_MAX_HEADER_BYTES}`);
    });
  }
});

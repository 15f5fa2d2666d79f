import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { PARSER_MAX_HEADER_BYTES } from "@ws/shared";
import { commandFor, PROCESSES, REPO_ROOT, runtimeEnv, startChild, waitUntilOk, type ProcessName } from "./processes";

const scripts = JSON.parse(readFileSync(`${REPO_ROOT}package.json`, "utf8")).scripts as Record<string, string>;
const NAMES: ProcessName[] = ["gateway", "pages", "calendar"];

describe("how processes are started", () => {
  for (const name of NAMES) {
    test(`when npm run start:${name} runs, then it goes through scripts/run-process.ts, which reads ${name}'s definition`, () => {
      expect(scripts[`start:${name}`]).toBe(`exec bun scripts/run-process.ts ${name}`);
    });

    test(`when ${name} is started on Bun, then the command carries its definition's flags before the entry file, and its variables`, () => {
      const { flags, env } = PROCESSES[name].runtime.bun;
      const command = commandFor(name, "bun");
      expect(command[0]).toBe(`${REPO_ROOT}node_modules/.bin/bun`);
      expect(command.slice(1, -1)).toEqual(["--no-env-file", ...flags]);
      expect(command.at(-1)).toBe(`${REPO_ROOT}${name === "gateway" ? "gateway" : `services/${name}`}/src/main.bun.ts`);
      expect(existsSync(command.at(-1)!)).toBe(true);
      expect(runtimeEnv(name, "bun")).toEqual({ ...env });
    });

    test(`when ${name} is started on Deno, then it runs its Deno entry file with every permission`, () => {
      const command = commandFor(name, "deno");
      expect(command.slice(1, 4)).toEqual(["run", "--allow-all", "--quiet"]);
      expect(command.at(-1)).toEndWith("/main.deno.ts");
      expect(existsSync(command.at(-1)!)).toBe(true);
    });

    test(`when ${name} starts on Bun, then its HTTP parser takes the headers every process agrees on`, () => {
      expect(PROCESSES[name].runtime.bun.flags).toContain(`--max-http-header-size=${PARSER_MAX_HEADER_BYTES}`);
    });
  }

  test("the gateway's definition raises Bun's header limit and makes it collect garbage early", () => {
    expect(PROCESSES.gateway.runtime.bun.flags).toEqual(["--smol", "--max-http-header-size=1048576"]);
    expect(PROCESSES.gateway.runtime.bun.env).toEqual({ BUN_JSC_forceRAMSize: "268435456", MIMALLOC_PURGE_DELAY: "0", MIMALLOC_ARENA_EAGER_COMMIT: "0" });
  });
});

describe("when a process dies before it is ready", () => {
  test("then the error carries its last output lines, even when nobody was printing them", async () => {
    const script = 'for (let i = 0; i < 30; i++) console.error("line " + i); console.error("port 1 is in use"); process.exit(3)';
    const child = startChild("dying", [`${REPO_ROOT}node_modules/.bin/bun`, "-e", script], process.env as Record<string, string>, () => {});
    const error = await waitUntilOk("http://127.0.0.1:9/healthz", child, 10_000).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toStartWith("dying exited before it was ready (http://127.0.0.1:9/healthz); its last output:");
    expect(message).toContain("port 1 is in use");
    expect(message).toContain("line 29");
    expect(message).not.toContain("line 10\n");
  });
});

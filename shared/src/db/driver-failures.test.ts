import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { testStorage, type TestStorage } from "../../../tests/harness/database";

const storages: TestStorage[] = [];
afterAll(async () => {
  for (const storage of storages) await storage.dispose();
});

const RUNTIMES = { bun: [process.execPath], deno: [join(import.meta.dir, "../../../node_modules/.bin/deno"), "run", "--allow-all", "--quiet"] };

async function runFixture(runtime: keyof typeof RUNTIMES, guard: boolean, failure = "terminated") {
  const storage = await testStorage();
  storages.push(storage);
  const child = Bun.spawn([...RUNTIMES[runtime], join(import.meta.dir, "fixtures", "types-query-cut.ts")], {
    env: { ...process.env, FIXTURE_DATABASE_URL: storage.databaseUrl!, FIXTURE_GUARD: guard ? "1" : "0", FIXTURE_FAILURE: failure },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill(), 30_000);
  const [exitCode, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  clearTimeout(timer);
  const last = stdout.trim().split("\n").at(-1) ?? "";
  return { exitCode, stderr, result: last.startsWith("{") ? JSON.parse(last) : undefined };
}

describe.skipIf(!process.env.DATABASE_URL)("a connection that breaks while the driver sets it up", () => {
  for (const runtime of ["bun", "deno"] as const) {
    test(`when the driver's own first query is cut, then on ${runtime} the process logs it, goes on, and serves the next query`, async () => {
      const { exitCode, stderr, result } = await runFixture(runtime, true);
      expect({ exitCode, stderr: exitCode === 0 ? "" : stderr.slice(-2000) }).toEqual({ exitCode: 0, stderr: "" });
      expect(result.cuts).toBe(1);
      expect(result.warnings.length).toBeGreaterThan(0);
      expect(result.warnings.every((line: string) => line === "a database connection broke while the driver set it up")).toBe(true);
      expect(result.served).toBe(true);
    }, 60_000);
  }

  for (const runtime of ["bun", "deno"] as const) {
    test(`when that query fails but its connection stays open (a statement timeout), then on ${runtime} the process stops rather than go on with a connection missing the array types`, async () => {
      const { exitCode, stderr, result } = await runFixture(runtime, true, "statement_timeout");
      expect(exitCode).not.toBe(0);
      expect(result).toBeUndefined();
      expect(stderr).toContain("unhandled rejection: stopping");
    }, 60_000);
  }

  for (const runtime of ["bun", "deno"] as const) {
    test(`when nothing handles it, then on ${runtime} the driver's dropped failure ends the process (why the handler exists)`, async () => {
      const { exitCode, result } = await runFixture(runtime, false);
      expect(exitCode).not.toBe(0);
      expect(result).toBeUndefined();
    }, 60_000);
  }
});

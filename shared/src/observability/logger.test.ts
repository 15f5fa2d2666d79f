import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createLogger, flushLogs } from "./logger";

const original = console.log;
let written: string[] = [];
beforeEach(() => {
  flushLogs();
  written = [];
  console.log = (text: string) => written.push(text);
});
afterEach(() => {
  flushLogs();
  console.log = original;
});
const lines = () => written.flatMap((text) => text.split("\n"));

describe("createLogger", () => {
  test("when a field named like a credential is logged, then its value is redacted", () => {
    createLogger("test", "info").info("request", { key_id: "k1", authorization: "Bearer wsk_secret", admin_token: "t", DATABASE_URL: "postgres://u:p@h/db" });
    flushLogs();
    const entry = JSON.parse(lines()[0]!);
    expect(entry.key_id).toBe("k1");
    expect(entry.authorization).toBe("[redacted]");
    expect(entry.admin_token).toBe("[redacted]");
    expect(entry.DATABASE_URL).toBe("[redacted]");
    expect(written.join("\n")).not.toContain("wsk_secret");
  });

  test("when many info lines are logged in a burst, then they go out together in one write, in order, one JSON object per line", async () => {
    const logger = createLogger("test", "info");
    for (let i = 0; i < 100; i++) logger.info("request", { n: i });
    expect(written).toEqual([]);
    await Bun.sleep(120);
    expect(written.length).toBe(1);
    expect(lines().map((line) => JSON.parse(line).n)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  test("when an error is logged, then it and every line before it are written at once", () => {
    const logger = createLogger("test", "info");
    logger.info("first");
    logger.error("second");
    expect(lines().map((line) => JSON.parse(line).message)).toEqual(["first", "second"]);
  });

  test("when a line is written, then it is one JSON object: time, level, service, message, then the fields in their order, undefined ones left out", () => {
    const before = Date.now();
    const logger = createLogger("pages", "info");
    logger.info("request", { request_id: "r1", key_id: undefined, status: 200, note: 'quote " and \n newline' });
    logger.warn("no fields");
    logger.info("empty", {});
    flushLogs();
    const [first, second, third] = lines();
    const entry = JSON.parse(first!);
    expect(Object.keys(entry)).toEqual(["time", "level", "service", "message", "request_id", "status", "note"]);
    expect(entry).toMatchObject({ level: "info", service: "pages", message: "request", request_id: "r1", status: 200, note: 'quote " and \n newline' });
    expect(Date.parse(entry.time)).toBeGreaterThanOrEqual(before - (before % 1000));
    expect(Date.parse(entry.time)).toBeLessThanOrEqual(Date.now());
    expect(JSON.parse(second!)).toEqual({ time: expect.any(String), level: "warn", service: "pages", message: "no fields" });
    expect(JSON.parse(third!)).toEqual({ time: expect.any(String), level: "info", service: "pages", message: "empty" });
  });

  test("when a field is named like one of the line's own, then the line holds that name once, with the field's value", () => {
    createLogger("pages", "info").error("request", { message: "from the field", level: "custom" });
    const [line] = lines();
    expect(line!.match(/"message"/g)).toHaveLength(1);
    expect(JSON.parse(line!)).toMatchObject({ message: "from the field", level: "custom", service: "pages" });
  });

  test("when lines are below the level, then nothing is written", () => {
    createLogger("test", "warn").info("hidden");
    flushLogs();
    expect(written).toEqual([]);
  });
});

const CRASHING = fileURLToPath(new URL("./logger.crash-fixture.ts", import.meta.url));
const BIN = fileURLToPath(new URL("../../../node_modules/.bin/", import.meta.url));

describe("when a process logs and then dies", () => {
  for (const runtime of ["bun", "deno"] as const) {
    for (const how of ["throws", "rejects", "exits"] as const) {
      test(`when it ${how} on ${runtime}, then every line it logged was written`, () => {
        const command = runtime === "bun" ? [CRASHING, how] : ["run", "--allow-all", "--quiet", CRASHING, how];
        const result = spawnSync(`${BIN}${runtime}`, command, { encoding: "utf8", timeout: 30_000 });
        const messages = result.stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line).message);
        expect(messages).toEqual(["one", "two", "three"]);
        expect(result.status).toBe(how === "exits" ? 3 : 1);
      }, 35_000);
    }
  }
});

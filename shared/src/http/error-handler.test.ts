import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { ApiError } from "../errors/api-error";
import type { Logger } from "../observability/logger";
import { errorHandler } from "./error-handler";

/** A logger that keeps its lines, to read what a refusal or a failure wrote. */
function keptLines() {
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const keep = (level: string) => (message: string, fields: Record<string, unknown> = {}) => void lines.push({ level, message, fields });
  const logger: Logger = { debug: keep("debug"), info: keep("info"), warn: keep("warn"), error: keep("error") };
  return { lines, logger };
}

describe("what the error handler writes to the log", () => {
  test("when the process refuses a request itself (503), then one warn line without a stack; an unexpected failure is an error line with its stack", async () => {
    const { lines, logger } = keptLines();
    const app = new Elysia()
      .use(errorHandler({ validationCode: "validation_error", logger }))
      .get("/refused", () => {
        throw new ApiError("service_unavailable", "Too many large page contents are in transit right now.");
      })
      .get("/broken", () => {
        throw new Error("a bug");
      });
    expect((await app.handle(new Request("http://localhost/refused"))).status).toBe(503);
    expect((await app.handle(new Request("http://localhost/broken"))).status).toBe(500);
    expect(lines.map(({ level, message }) => [level, message])).toEqual([["warn", "request refused"], ["error", "request failed"]]);
    expect(lines[0]!.fields).not.toHaveProperty("error");
    expect(lines[0]!.fields.message).toBe("Too many large page contents are in transit right now.");
    expect(String(lines[1]!.fields.error)).toContain("a bug");
  });

  test("when an object is answered, then its type is application/json exactly", async () => {
    const app = new Elysia().use(errorHandler({ validationCode: "validation_error", logger: keptLines().logger })).get("/thing", () => ({ ok: true }));
    expect((await app.handle(new Request("http://localhost/thing"))).headers.get("content-type")).toBe("application/json");
  });
});

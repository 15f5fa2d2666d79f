import { describe, expect, test } from "bun:test";
import { createLogger } from "./logger";

describe("createLogger", () => {
  test("when a field named like a credential is logged, then its value is redacted", () => {
    const original = console.log;
    const written: string[] = [];
    console.log = (line: string) => written.push(line);
    try {
      createLogger("test", "info").info("request", { key_id: "k1", authorization: "Bearer wsk_secret", admin_token: "t", DATABASE_URL: "postgres://u:p@h/db" });
    } finally {
      console.log = original;
    }
    const entry = JSON.parse(written[0]!);
    expect(entry.key_id).toBe("k1");
    expect(entry.authorization).toBe("[redacted]");
    expect(entry.admin_token).toBe("[redacted]");
    expect(entry.DATABASE_URL).toBe("[redacted]");
    expect(written[0]).not.toContain("wsk_secret");
  });
});

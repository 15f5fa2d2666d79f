/**
 * The k6 scripts are plain JavaScript and cannot import @ws/shared, so they
 * carry their own copies of a few of its lists. These tests pin each copy to
 * the shared one, so a renamed scope or error code fails here, not in a k6 run.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
// The modules themselves rather than the package index, whose error class needs DOM typings this config leaves out.
import { SCOPES } from "@ws/shared/src/access/scopes.ts";
import { ERROR_STATUS } from "@ws/shared/src/errors/codes.ts";
import { ATTENDEE_STATUSES as SHARED_ATTENDEE_STATUSES } from "@ws/shared/src/schemas/calendar.ts";
import { MAX_PER_PAGE as SHARED_MAX_PER_PAGE } from "@ws/shared/src/schemas/list.ts";
import { WORKLOAD_SCOPES } from "./mix.js";
import { ATTENDEE_STATUSES, MAX_PER_PAGE } from "./shapes.js";

const ROOT = join(import.meta.dir, "..");

function scriptTexts(): { file: string; text: string }[] {
  const top = readdirSync(ROOT).filter((f) => f.endsWith(".js"));
  const lib = readdirSync(join(ROOT, "lib")).filter((f) => f.endsWith(".js")).map((f) => join("lib", f));
  return [...top, ...lib].map((file) => ({ file, text: readFileSync(join(ROOT, file), "utf8") }));
}

describe("the load scripts' copies of the shared contract", () => {
  test("when the workload provisions a key, then every scope it asks for is a scope of @ws/shared", () => {
    expect(WORKLOAD_SCOPES.length).toBeGreaterThan(0);
    expect(WORKLOAD_SCOPES.filter((scope) => !(SCOPES as readonly string[]).includes(scope))).toEqual([]);
  });

  test("when a script writes a scope list inline, then every scope in it is a scope of @ws/shared", () => {
    const inline = scriptTexts().flatMap(({ file, text }) =>
      [...text.matchAll(/scopes:\s*(\[[^\]]*\])/g)].map((match) => ({ file, scopes: JSON.parse(match[1]!) as string[] })),
    );
    // ratelimit.js provisions its keys with an inline list: the scan must see it.
    expect(inline.map(({ file }) => file)).toContain("ratelimit.js");
    expect(inline.flatMap(({ file, scopes }) => scopes.filter((s) => !(SCOPES as readonly string[]).includes(s)).map((s) => `${file}: ${s}`))).toEqual([]);
  });

  test("when the rate-limit judge compares an error code, then it is a 429 code of @ws/shared", () => {
    const text = readFileSync(join(ROOT, "lib/ratelimit-rules.js"), "utf8");
    const codes = [...text.matchAll(/(?<![.\w])code [!=]== "([a-z_]+)"/g)].map((match) => match[1]!);
    expect(codes.sort()).toEqual(["key_suspended", "rate_limit_exceeded"]);
    expect(codes.map((code) => ERROR_STATUS[code as keyof typeof ERROR_STATUS])).toEqual([429, 429]);
  });

  test("when a shape is judged, then its attendee statuses and page-size bound are those of @ws/shared", () => {
    expect([...ATTENDEE_STATUSES]).toEqual([...SHARED_ATTENDEE_STATUSES]);
    expect(MAX_PER_PAGE).toBe(SHARED_MAX_PER_PAGE);
  });
});

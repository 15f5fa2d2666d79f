import { describe, expect, test } from "bun:test";
import { chooseFormat, launcherOutput } from "./launcher-output";

function capture(format: "json" | "pretty") {
  const out: string[] = [];
  const err: string[] = [];
  const output = launcherOutput({ format, color: false, summaryEveryMs: 60_000, stdout: (text) => out.push(text), stderr: (text) => err.push(text) });
  return { output, out, err };
}

const requestLine = (status: number, latency: number) =>
  JSON.stringify({ time: "2026-01-01T10:00:00.000Z", level: "info", service: "gateway", message: "request", request_id: "r1", key_id: "k1", method: "GET", route: "listPages", status, latency_ms: latency });

describe("the launcher's output format", () => {
  test("when LOG_FORMAT is not given, then a terminal gets pretty lines and anything else JSON", () => {
    expect(chooseFormat(undefined, true)).toBe("pretty");
    expect(chooseFormat(undefined, false)).toBe("json");
    expect(chooseFormat("auto", true)).toBe("pretty");
    expect(chooseFormat("json", true)).toBe("json");
    expect(chooseFormat("pretty", false)).toBe("pretty");
  });
});

describe("when the output is pretty", () => {
  test("then a JSON log line becomes one readable line with its fields, and warnings and errors go to stderr", () => {
    const { output, out, err } = capture("pretty");
    output.child("pages", JSON.stringify({ time: "2026-01-01T10:00:00.000Z", level: "info", service: "pages", message: "listening", listener: "pages", port: 8091 }));
    output.child("gateway", JSON.stringify({ time: "2026-01-01T10:00:01.000Z", level: "error", service: "gateway", message: "redis unreachable: rate limiting falls back", mode: "open" }));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^\d\d:\d\d:\d\d pages\s+listening listener=pages port=8091\n$/);
    expect(err).toHaveLength(1);
    expect(err[0]).toContain("ERROR redis unreachable: rate limiting falls back mode=open");
  });

  test("then request lines are counted, not printed, and summarised by status with their latency", () => {
    const { output, out } = capture("pretty");
    for (let i = 0; i < 3; i++) output.child("gateway", requestLine(200, 2));
    output.child("gateway", requestLine(401, 10));
    expect(out).toEqual([]);
    output.close();
    expect(out).toHaveLength(1);
    expect(out[0]).toContain("4 requests in the last 60 s: 200 ×3, 401 ×1");
    expect(out[0]).toContain("avg 4.0 ms, max 10 ms");
  });

  test("then a request that failed on the server side is shown on its own, and counted", () => {
    const { output, err, out } = capture("pretty");
    output.child("gateway", requestLine(503, 10_000));
    expect(err).toHaveLength(0);
    expect(out).toHaveLength(1);
    expect(out[0]).toContain("request");
    expect(out[0]).toContain("status=503");
    output.close();
    expect(out[1]).toContain("1 request in the last 60 s: 503 ×1");
  });

  test("then a line that is not JSON (a stack trace, say) is shown as it is", () => {
    const { output, out } = capture("pretty");
    output.child("pages", "error: Cannot find module './nope'");
    expect(out[0]).toContain("pages");
    expect(out[0]).toContain("error: Cannot find module './nope'");
  });

  test("then nothing is summarised when no request came", () => {
    const { output, out, err } = capture("pretty");
    output.close();
    expect([...out, ...err]).toEqual([]);
  });
});

describe("when the output is JSON", () => {
  test("then the launcher's own lines are JSON objects from the launcher, and the banner's fields go in one line", () => {
    const { output, out } = capture("json");
    output.say("warn", "pages was killed (SIGKILL); restarting it in 1 s", { process: "pages" });
    output.banner("ready", "Workspace API is up\n  ...", { api: ["http://localhost:8080"], demo_key: "wsk_x" });
    const lines = out.map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ level: "warn", service: "launcher", message: "pages was killed (SIGKILL); restarting it in 1 s", process: "pages" });
    expect(lines[1]).toMatchObject({ level: "info", service: "launcher", message: "ready", api: ["http://localhost:8080"], demo_key: "wsk_x" });
    expect(typeof lines[1].time).toBe("string");
  });

  test("then a fatal error is still one plain line on stderr", () => {
    const { output, out, err } = capture("json");
    output.fatal("Port 8080 (the public API) is in use.");
    expect(out).toEqual([]);
    expect(err).toEqual(["Port 8080 (the public API) is in use.\n"]);
  });
});

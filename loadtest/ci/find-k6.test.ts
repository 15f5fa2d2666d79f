import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findK6 } from "./find-k6";

const sandbox = mkdtempSync(join(tmpdir(), "find-k6-"));
afterAll(() => rmSync(sandbox, { recursive: true, force: true }));

/** A clone with an executable file at `relativePath` (or none). */
function layout(name: string, executables: string[]): string {
  const root = join(sandbox, name);
  const repo = join(root, "repo");
  mkdirSync(repo, { recursive: true });
  for (const path of executables) {
    const file = join(root, path);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, "#!/bin/sh\necho k6\n");
    chmodSync(file, 0o755);
  }
  return root;
}

describe("finding k6", () => {
  test("when K6 names an executable, then that one is used, even with k6 on PATH", () => {
    const root = layout("given", ["tools/my-k6", "bin/k6"]);
    expect(findK6({ K6: join(root, "tools/my-k6"), PATH: join(root, "bin") }, join(root, "repo"))).toEqual({ found: true, path: join(root, "tools/my-k6"), from: "K6" });
  });

  test("when K6 points nowhere, then nothing is used and the reason names K6 (the way to skip the stage)", () => {
    const root = layout("nowhere", ["bin/k6", "shared/tools/k6"]);
    const found = findK6({ K6: "/nonexistent/k6", PATH: join(root, "bin") }, join(root, "repo"));
    expect(found).toEqual({ found: false, reason: "K6=/nonexistent/k6 is not an executable file" });
  });

  test("when K6 is unset, then k6 on PATH comes before the copy beside the clone", () => {
    const root = layout("path", ["bin/k6", "shared/tools/k6"]);
    expect(findK6({ PATH: `/nonexistent:${join(root, "bin")}` }, join(root, "repo"))).toMatchObject({ found: true, path: join(root, "bin/k6"), from: "PATH" });
  });

  test("when neither K6 nor PATH has one, then the copy beside the clone is used", () => {
    const root = layout("beside", ["shared/tools/k6"]);
    expect(findK6({ PATH: "/nonexistent" }, join(root, "repo"))).toMatchObject({ found: true, path: join(root, "shared/tools/k6") });
  });

  test("when a k6 file is there but not executable, or there is none, then nothing is found", () => {
    const root = layout("none", []);
    mkdirSync(join(root, "bin"));
    writeFileSync(join(root, "bin/k6"), "not a program");
    expect(findK6({ PATH: join(root, "bin") }, join(root, "repo"))).toMatchObject({ found: false });
  });
});

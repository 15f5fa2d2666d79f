import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Forces one full collection of a large heap and compares the duration the
 * profiler reports with the wall clock around it: a wrong unit is off by a
 * factor of a thousand.
 */
const probe = (gcProfilerModule: string, forceGc: string) => `
import { gcProfiler } from ${JSON.stringify(gcProfilerModule)};
const keep = [];
for (let i = 0; i < 1_500_000; i++) keep.push({ i, s: "x" + i });
const profiler = gcProfiler();
profiler.drain();
const started = performance.now();
${forceGc};
const wall = (performance.now() - started) / 1000;
const pauses = profiler.drain();
profiler.stop();
console.log(JSON.stringify({ wall, pauses, kept: keep.length }));
`;

function expectPlausible(output: string): void {
  const { wall, pauses } = JSON.parse(output) as { wall: number; pauses: { kind: string; seconds: number }[] };
  const total = pauses.reduce((sum, pause) => sum + pause.seconds, 0);
  expect(pauses.map((pause) => pause.kind)).toContain("major");
  // A wrong unit is off by a thousand; concurrent collection work may add a little on Bun.
  expect(total).toBeGreaterThan(wall * 0.3);
  expect(total).toBeLessThan(wall * 2 + 0.01);
}

describe("gcProfiler", () => {
  const module = join(import.meta.dir, "gc-profiler.ts");

  test("when Bun collects a large heap, then the reported pause matches the wall clock", () => {
    const dir = mkdtempSync(join(tmpdir(), "gc-profiler-"));
    try {
      writeFileSync(join(dir, "probe.ts"), probe(module, "Bun.gc(true)"));
      const run = Bun.spawnSync([process.execPath, join(dir, "probe.ts")]);
      expect(run.exitCode).toBe(0);
      expectPlausible(run.stdout.toString());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("when Deno collects a large heap, then the reported pause matches the wall clock", () => {
    const dir = mkdtempSync(join(tmpdir(), "gc-profiler-"));
    try {
      writeFileSync(join(dir, "probe.ts"), probe(module, "(globalThis as unknown as { gc(): void }).gc()"));
      const deno = join(import.meta.dir, "../../../node_modules/.bin/deno");
      const run = Bun.spawnSync([deno, "run", "--allow-all", "--quiet", "--v8-flags=--expose-gc", join(dir, "probe.ts")], { cwd: dir });
      expect(run.stderr.toString()).toBe("");
      expect(run.exitCode).toBe(0);
      expectPlausible(run.stdout.toString());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

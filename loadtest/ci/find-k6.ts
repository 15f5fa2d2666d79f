import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";

export type K6Lookup = { found: true; path: string; from: string } | { found: false; reason: string };

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The k6 binary to run: `K6` when set (only that one: pointing it nowhere is
 * how to skip the k6 stage), else `k6` on PATH, else the copy CI machines keep
 * beside the repository clone. Users install k6 themselves; none is required.
 */
export function findK6(env: Record<string, string | undefined>, repoRoot: string): K6Lookup {
  const configured = env.K6?.trim();
  if (configured) {
    const path = resolve(repoRoot, configured);
    return isExecutableFile(path) ? { found: true, path, from: "K6" } : { found: false, reason: `K6=${configured} is not an executable file` };
  }
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const path = join(dir, "k6");
    if (isExecutableFile(path)) return { found: true, path, from: "PATH" };
  }
  const beside = resolve(repoRoot, "..", "shared", "tools", "k6");
  if (isExecutableFile(beside)) return { found: true, path: beside, from: "the copy beside the clone" };
  return { found: false, reason: "no k6 found: K6 is unset, there is no k6 on PATH nor beside the clone" };
}

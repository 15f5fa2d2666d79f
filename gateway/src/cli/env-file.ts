import { existsSync, readFileSync } from "node:fs";

/**
 * Reads KEY=value lines of a .env file (`export` prefixes, quotes and `#`
 * comments allowed). Missing file: nothing.
 */
export function readEnvFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  const values: Record<string, string> = {};
  for (const raw of readFileSync(path, "utf8").split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(raw);
    if (!match) continue;
    const value = match[2]!;
    // A quoted value ends at its closing quote (a comment may follow); a bare one at " #".
    const quoted = /^(["'])((?:\\.|(?!\1).)*)\1(\s+#.*)?$/.exec(value);
    if (quoted) values[match[1]!] = quoted[1] === '"' ? quoted[2]!.replace(/\\n/g, "\n").replace(/\\(["\\])/g, "$1") : quoted[2]!;
    else values[match[1]!] = value.replace(/(^|\s+)#.*$/, "");
  }
  return values;
}

/** The environment, completed by a .env file for what it does not set: a variable set in the shell always wins. */
export function environmentWithEnvFile(env: Record<string, string | undefined>, path: string): Record<string, string | undefined> {
  return { ...readEnvFile(path), ...Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== "")) };
}

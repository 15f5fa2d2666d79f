import { readdirSync, readFileSync } from "node:fs";

/** State and parent of a process from /proc (Linux); undefined once it is gone. */
function stat(pid: number): { state: string; parent: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces: read after the last ")".
    const [state, parent] = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: state!, parent: Number(parent) };
  } catch {
    return undefined;
  }
}

/** Running: not gone and not a zombie waiting to be reaped. */
export function isAlive(pid: number): boolean {
  const found = stat(pid);
  return found !== undefined && found.state !== "Z" && found.state !== "X";
}

/** Every live process below `root`, children first. */
export function descendants(root: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const found = stat(pid);
    if (!found || !isAlive(pid)) continue;
    parents.set(found.parent, [...(parents.get(found.parent) ?? []), pid]);
  }
  const result: number[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of parents.get(queue.shift()!) ?? []) {
      result.push(child);
      queue.push(child);
    }
  }
  return result;
}

/** Polls until the condition holds; throws after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number, what = "the condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not hold within ${timeoutMs} ms`);
}

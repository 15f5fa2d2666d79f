import { spawn, type ChildProcess } from "node:child_process";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { ProcessDefinition } from "@ws/shared";
import { gatewayProcess } from "../../gateway/src/definition";
import { calendarProcess } from "../../services/calendar/src/definition";
import { pagesProcess } from "../../services/pages/src/definition";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export type RuntimeName = "bun" | "deno";
export type ProcessName = "gateway" | "pages" | "calendar";

/** Every process of the system, as its own definition.ts describes it. */
export const PROCESSES: Record<ProcessName, ProcessDefinition> = {
  gateway: gatewayProcess,
  pages: pagesProcess,
  calendar: calendarProcess,
};

export function isProcessName(name: string): name is ProcessName {
  return Object.hasOwn(PROCESSES, name);
}

/** Environment the runtime itself reads at start, for one process. */
export function runtimeEnv(process: ProcessName, runtime: RuntimeName): Record<string, string> {
  return { ...PROCESSES[process].runtime[runtime].env };
}

/** The entry file of a process on a runtime, relative to the repository root. */
export function entryFile(process: ProcessName, runtime: RuntimeName): string {
  return relative(REPO_ROOT, fileURLToPath(PROCESSES[process].entry[runtime]));
}

/**
 * The command that runs one process on one runtime, from the runtimes npm
 * installed. The environment is always given explicitly, so Bun is told not to
 * read a .env file of its own.
 */
export function commandFor(process: ProcessName, runtime: RuntimeName): string[] {
  const bin = `${REPO_ROOT}node_modules/.bin/${runtime}`;
  const entry = `${REPO_ROOT}${entryFile(process, runtime)}`;
  const { flags } = PROCESSES[process].runtime[runtime];
  return runtime === "bun" ? [bin, "--no-env-file", ...flags, entry] : [bin, "run", "--allow-all", "--quiet", ...flags, entry];
}

/** Where a child's output goes: each line to a function, or straight to the launcher's own stdout and stderr. */
export type ChildOutput = ((name: string, line: string) => void) | "inherit";

export interface Child {
  name: string;
  process: ChildProcess;
  exited: Promise<number | null>;
  /** The child's last output lines (empty when its output is inherited), so a start that fails can say why even when nobody printed them. */
  lastLines: string[];
}

const KEPT_LINES = 20;

/** Calls `output` once per complete line of a stream, without copying what it does not need. */
function relayLines(name: string, stream: NodeJS.ReadableStream | null, output: (name: string, line: string) => void) {
  let pending = "";
  stream?.on("data", (chunk: Buffer) => {
    const text = pending + chunk.toString();
    let start = 0;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      if (end > start) output(name, text.slice(start, end));
      start = end + 1;
    }
    pending = text.slice(start);
  });
  stream?.on("end", () => {
    if (pending) output(name, pending);
    pending = "";
  });
}

export function startChild(name: string, command: string[], env: Record<string, string>, output: ChildOutput): Child {
  const inherit = output === "inherit";
  const child = spawn(command[0]!, command.slice(1), { cwd: REPO_ROOT, env, stdio: ["ignore", inherit ? "inherit" : "pipe", inherit ? "inherit" : "pipe"] });
  const lastLines: string[] = [];
  if (!inherit) {
    const keep = (from: string, line: string) => {
      if (lastLines.push(line) > KEPT_LINES) lastLines.shift();
      output(from, line);
    };
    relayLines(name, child.stdout, keep);
    relayLines(name, child.stderr, keep);
  }
  const exited = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => resolve(code));
    // A command that cannot be spawned reports an error, and maybe no exit.
    child.on("error", () => resolve(null));
  });
  return { name, process: child, exited, lastLines };
}

/** True while the child's process has not exited. */
export function isRunning(child: Child): boolean {
  return child.process.exitCode === null && child.process.signalCode === null;
}

/** Polls a URL until it answers 200, the child dies, or time runs out. */
export async function waitUntilOk(url: string, child: Child, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let died = false;
  child.exited.then(() => (died = true));
  while (Date.now() < deadline) {
    if (died) {
      const said = child.lastLines.length ? `; its last output:\n${child.lastLines.join("\n")}` : "";
      throw new Error(`${child.name} exited before it was ready (${url})${said}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${child.name} was not ready at ${url} after ${timeoutMs} ms`);
}

export async function stopChild(child: Child, graceMs = 15_000): Promise<number | null> {
  if (!isRunning(child)) return child.process.exitCode;
  child.process.kill("SIGTERM");
  const timer = setTimeout(() => child.process.kill("SIGKILL"), graceMs);
  const code = await child.exited;
  clearTimeout(timer);
  return code;
}

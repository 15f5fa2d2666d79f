import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export type RuntimeName = "bun" | "deno";
export type ProcessName = "gateway" | "pages" | "calendar";

const ENTRY: Record<ProcessName, string> = {
  gateway: "gateway/src",
  pages: "services/pages/src",
  calendar: "services/calendar/src",
};

/**
 * How Bun runs each process, kept equal to `npm run start:<process>` and the image
 * (a test checks both). Every process's HTTP parser accepts 1 MiB of headers
 * (PARSER_MAX_HEADER_BYTES in shared/src/http/header-limits.ts, a test checks the
 * flag against it), far above the gateway's own limit: the gateway answers an
 * over-large request itself, with the error object, and a service never refuses
 * what the gateway forwarded. --smol and a small forceRAMSize make JavaScriptCore collect garbage sooner:
 * the gateway's peak memory under full load drops from about 130 MB to 105 MB
 * at the same throughput (bench/README.md).
 */
export const BUN_SETTINGS: Record<ProcessName, { env: Record<string, string>; flags: string[] }> = {
  gateway: { env: { BUN_JSC_forceRAMSize: "268435456" }, flags: ["--smol", "--max-http-header-size=1048576"] },
  pages: { env: {}, flags: ["--max-http-header-size=1048576"] },
  calendar: { env: {}, flags: ["--max-http-header-size=1048576"] },
};

/** Environment the runtime itself reads at start, for one process. */
export function runtimeEnv(process: ProcessName, runtime: RuntimeName): Record<string, string> {
  return runtime === "bun" ? BUN_SETTINGS[process].env : {};
}

/** The command that runs one process on one runtime, from the runtimes npm installed. */
export function commandFor(process: ProcessName, runtime: RuntimeName): string[] {
  const bin = `${REPO_ROOT}node_modules/.bin/${runtime}`;
  const entry = `${REPO_ROOT}${ENTRY[process]}/main.${runtime}.ts`;
  return runtime === "bun" ? [bin, ...BUN_SETTINGS[process].flags, entry] : [bin, "run", "--allow-all", "--quiet", entry];
}

export interface Child {
  name: string;
  process: ChildProcess;
  exited: Promise<number | null>;
}

export function startChild(name: string, command: string[], env: Record<string, string>, output: (name: string, line: string) => void): Child {
  const child = spawn(command[0]!, command.slice(1), { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  const relay = (stream: NodeJS.ReadableStream | null) => {
    let buffered = "";
    stream?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      for (const line of lines) if (line) output(name, line);
    });
  };
  relay(child.stdout);
  relay(child.stderr);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { name, process: child, exited };
}

/** Polls a URL until it answers 200, the child dies, or time runs out. */
export async function waitUntilOk(url: string, child: Child, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let died = false;
  child.exited.then(() => (died = true));
  while (Date.now() < deadline) {
    if (died) throw new Error(`${child.name} exited before it was ready (${url})`);
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
  if (child.process.exitCode !== null || child.process.signalCode !== null) return child.process.exitCode;
  child.process.kill("SIGTERM");
  const timer = setTimeout(() => child.process.kill("SIGKILL"), graceMs);
  const code = await child.exited;
  clearTimeout(timer);
  return code;
}

import { spawn, type ChildProcess } from "node:child_process";
import { freePortBlock, portIsFree, REPO_ROOT } from "../../scripts/system";
import { descendants, isAlive, waitFor } from "./process-tree";
import { TEST_RUNTIME } from "./system";

/** The variables a developer's shell might hold that would change what `npm start` does. */
const CLEARED = ["DATABASE_URL", "REDIS_URL", "ADMIN_TOKEN", "LOG_FORMAT", "GATEWAY_REPLICAS", "RUNTIME", "PORT", "ADMIN_PORT", "PAGES_PORT", "CALENDAR_PORT"];

export interface LauncherRun {
  npm: ChildProcess;
  ports: number[];
  /** Every line the launcher and its processes wrote to stdout, parsed (JSON, since stdout is not a terminal). */
  lines: Record<string, unknown>[];
  stderr: string[];
  exited: Promise<number | null>;
  /** Processes below npm, as seen when the system was ready. */
  tree: number[];
  /** Waits for a stdout line matching the predicate. */
  line(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Stops it: SIGINT to the whole process group as Ctrl-C in a terminal does, or a signal to npm alone. */
  stop(how: "ctrl-c" | "sigterm-to-npm"): Promise<number | null>;
}

/**
 * `npm start` as a person runs it, on free ports (PORT, ADMIN_PORT, PAGES_PORT,
 * CALENDAR_PORT), in its own process group, on the runtime the tests run on.
 */
export async function runNpmStart(env: Record<string, string | undefined>, options: { ports?: number[]; script?: string[] } = {}): Promise<LauncherRun> {
  const base = options.ports ? undefined : await freePortBlock(4);
  const ports = options.ports ?? [base!, base! + 1, base! + 2, base! + 3];
  const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !CLEARED.includes(name)));
  const npm = spawn("npm", options.script ?? ["start"], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...cleanEnv,
      PATH: `${REPO_ROOT}node_modules/.bin:${process.env.PATH}`,
      PORT: String(ports[0]),
      ADMIN_PORT: String(ports[1]),
      PAGES_PORT: String(ports[2]),
      CALENDAR_PORT: String(ports[3]),
      LOG_LEVEL: "warn",
      RUNTIME: TEST_RUNTIME,
      ...env,
    } as Record<string, string>,
  });
  const lines: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  let pending = "";
  npm.stdout!.on("data", (chunk: Buffer) => {
    const parts = (pending + chunk.toString()).split("\n");
    pending = parts.pop()!;
    for (const part of parts) {
      if (!part.startsWith("{")) continue;
      try {
        lines.push(JSON.parse(part) as Record<string, unknown>);
      } catch {
        // npm's own banner lines
      }
    }
  });
  npm.stderr!.on("data", (chunk: Buffer) => stderr.push(...chunk.toString().split("\n").filter((line) => line && !line.startsWith("npm warn"))));
  const exited = new Promise<number | null>((resolve) => npm.on("exit", (code) => resolve(code)));
  const run: LauncherRun = {
    npm,
    ports,
    lines,
    stderr,
    exited,
    tree: [],
    async line(match, timeoutMs = 120_000) {
      let found: Record<string, unknown> | undefined;
      let ended = false;
      void exited.then(() => (ended = true));
      await waitFor(() => {
        found = lines.find(match);
        if (!found && ended) throw new Error(`npm start ended before the expected line; stderr: ${stderr.join("\n")}`);
        return found !== undefined;
      }, timeoutMs, "the expected launcher line");
      return found!;
    },
    async stop(how) {
      if (how === "ctrl-c") process.kill(-npm.pid!, "SIGINT");
      else npm.kill("SIGTERM");
      return exited;
    },
  };
  return run;
}

/** Waits for the ready line and notes the process tree then. */
export async function ready(run: LauncherRun): Promise<Record<string, unknown>> {
  const line = await run.line((entry) => entry.service === "launcher" && entry.message === "ready", 400_000);
  run.tree = descendants(run.npm.pid!);
  return line;
}

/** Nothing of the run is left: every process it had is gone and every port is free. */
export async function leftovers(run: LauncherRun): Promise<{ alive: number[]; busyPorts: number[] }> {
  await waitFor(() => run.tree.every((pid) => !isAlive(pid)), 30_000).catch(() => {});
  const alive = [run.npm.pid!, ...run.tree].filter(isAlive);
  const busyPorts: number[] = [];
  for (const port of run.ports) if (!(await portIsFree(port))) busyPorts.push(port);
  return { alive, busyPorts };
}

/** Kills whatever of a run is left, for a test's cleanup. */
export function killRun(run: LauncherRun | undefined): void {
  if (!run) return;
  for (const pid of [...run.tree, run.npm.pid!]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

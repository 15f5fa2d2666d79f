import { spawn, type ChildProcess } from "node:child_process";

export interface K6Result {
  /** k6's exit code; null when it was stopped for running too long or by a signal. */
  code: number | null;
  seconds: number;
  timedOut: boolean;
}

/** What k6's exit codes mean, for the recap. */
export function describeExit(code: number | null, timedOut: boolean): string {
  if (timedOut) return "stopped: ran past its time limit";
  if (code === null) return "stopped by a signal";
  const known: Record<number, string> = {
    0: "every threshold held",
    99: "a threshold failed",
    104: "invalid configuration",
    105: "aborted",
    107: "the script threw an error",
    108: "stopped by test.abort()",
  };
  return `exit ${code}${known[code] ? ` (${known[code]})` : ""}`;
}

let current: ChildProcess | undefined;

/** Stops the k6 run in progress, if any (on Ctrl-C or a kill of the stage). */
export function stopCurrentK6(): void {
  current?.kill("SIGTERM");
}

/**
 * Runs one script with k6, its output streamed as it comes. The environment is
 * exactly `env` plus PATH and HOME, so a stray API_KEY of the caller cannot
 * change what the script does. k6 gets SIGTERM after `timeoutMs` (it then
 * stops its VUs and prints its summary), SIGKILL 15 s later.
 */
export function runK6(k6: string, script: string, env: Record<string, string>, timeoutMs: number): Promise<K6Result> {
  const started = Date.now();
  const args = ["run", "--quiet", "--no-usage-report", "--log-format", "raw", script];
  const child = spawn(k6, args, {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", K6_NO_USAGE_REPORT: "true", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  current = child;
  child.stdout.on("data", (chunk: Buffer) => process.stdout.write(chunk));
  child.stderr.on("data", (chunk: Buffer) => process.stdout.write(chunk));
  let timedOut = false;
  let killer: ReturnType<typeof setTimeout> | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGTERM");
    killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  }, timeoutMs);
  return new Promise((resolve) => {
    const finish = (code: number | null) => {
      clearTimeout(timer);
      if (killer) clearTimeout(killer);
      current = undefined;
      resolve({ code, seconds: (Date.now() - started) / 1000, timedOut });
    };
    child.on("error", (error) => {
      process.stdout.write(`k6 could not be started: ${error.message}\n`);
      finish(null);
    });
    child.on("close", (code) => finish(code));
  });
}

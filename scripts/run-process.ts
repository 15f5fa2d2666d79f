import { spawn } from "node:child_process";
import { constants } from "node:os";
import process from "node:process";
import { commandFor, isProcessName, PROCESSES, runtimeEnv, type RuntimeName } from "./system/processes";

/**
 * `npm run start:<process>`: one process, configured by the environment, with
 * the runtime flags its definition.ts gives (the launcher uses the same ones).
 * RUNTIME=deno runs it on Deno. Signals are passed on; the exit code is the process's.
 */
const name = process.argv[2] ?? "";
if (!isProcessName(name)) {
  console.error(`Usage: bun scripts/run-process.ts <${Object.keys(PROCESSES).join("|")}>`);
  process.exit(2);
}
const runtime = (process.env.RUNTIME ?? "bun") as RuntimeName;
if (runtime !== "bun" && runtime !== "deno") {
  console.error(`Invalid configuration: RUNTIME must be one of bun, deno, got "${runtime}".`);
  process.exit(2);
}
const [command, ...args] = commandFor(name, runtime);
const child = spawn(command!, args, { stdio: "inherit", env: { ...runtimeEnv(name, runtime), ...process.env } });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => child.kill(signal));
// Orphaned (whoever started it was killed outright), it takes the process down with it.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) child.kill("SIGTERM");
}, 1000).unref();
child.on("error", (error) => {
  console.error(`Could not start ${name}: ${error.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0)));

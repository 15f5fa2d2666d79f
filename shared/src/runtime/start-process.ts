import { ConfigError } from "../config/env";
import { surviveDriverConnectionFailures } from "../db/driver-failures";
import { runProcess, type BootedProcess } from "./lifecycle";
import type { Runtime } from "./runtime";

/** What an entry file calls: boot, then serve; a configuration error stops the process with its message. */
export async function startProcess(runtime: Runtime, boot: () => Promise<BootedProcess>): Promise<void> {
  surviveDriverConnectionFailures();
  let booted: BootedProcess;
  try {
    booted = await boot();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      runtime.exit(2);
    }
    throw error;
  }
  surviveDriverConnectionFailures(booted.logger);
  await runProcess(runtime, booted);
}

/**
 * The launcher's library: what `npm start`, the tests' harness and the
 * benchmark use to run the system on this machine. Everything it knows of a
 * process comes from that process's definition.ts.
 */
export { launchSystem, type RunningSystem, type SystemOptions } from "./launch-system";
export { commandFor, entryFile, isProcessName, isRunning, PROCESSES, REPO_ROOT, runtimeEnv, startChild, stopChild, waitUntilOk } from "./processes";
export type { Child, ChildOutput, ProcessName, RuntimeName } from "./processes";
export { assertPortsFree, freePortBlock, PortInUseError, portIsFree, type PortUse } from "./ports";
export { supervise, DEFAULT_BACKOFF, type Backoff, type SupervisionEvent } from "./supervise";
export { chooseFormat, launcherOutput, type LauncherOutput, type LogFormat } from "./launcher-output";
export { checkDatabase } from "./database-check";
export { databaseProblem, describeDatabaseError, redactedUrl } from "./database-errors";
export { demoKey, demoStateFile } from "./demo-workspace";
export { ALL_PERMISSIONS, seededWorkspace, seedWorkspace, type SeededWorkspace } from "./seed-workspace";
export { throwawayStorage, type ThrowawayStorage } from "./throwaway-storage";

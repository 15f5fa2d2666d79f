import process from "node:process";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;
export const LOG_LEVELS = Object.keys(LEVELS) as LogLevel[];

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Field names whose values are credentials: a caller that logs one by mistake gets "[redacted]". */
const SECRET_FIELD = /authorization|api[-_]?key$|token|secret|password|signing|principal|database_url|redis_url|cookie/i;

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  let clean: Record<string, unknown> | undefined;
  for (const name in fields) {
    if (SECRET_FIELD.test(name)) (clean ??= { ...fields })[name] = "[redacted]";
  }
  return clean ?? fields;
}

/**
 * Lines wait here at most FLUSH_AFTER_MS (or until FLUSH_AT_CHARS have piled
 * up) and go out in one write: under load a write per request line cost the
 * gateway more CPU than the line itself. Warnings and errors go out at once,
 * after whatever was waiting, so order is kept; the process's exit, an uncaught
 * exception and an unhandled rejection flush too, so a crash loses nothing it
 * logged. Only SIGKILL can cost the last FLUSH_AFTER_MS of lines.
 */
const FLUSH_AFTER_MS = 50;
const FLUSH_AT_CHARS = 64 * 1024;
let pending: string[] = [];
let pendingChars = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
let hooked = false;

/** Writes every line still waiting, now. */
export function flushLogs(): void {
  if (timer !== undefined) {
    clearTimeout(timer);
    timer = undefined;
  }
  if (pending.length === 0) return;
  const text = pending.join("\n");
  pending = [];
  pendingChars = 0;
  console.log(text);
}

function hookExit(): void {
  hooked = true;
  // Bun and Node report every way out through process "exit"; Deno reports Deno.exit as "unload" and a crash as these events.
  process.on("exit", flushLogs);
  const global = globalThis as { addEventListener?: (type: string, listener: () => void) => void };
  for (const type of ["unload", "error", "unhandledrejection"]) global.addEventListener?.(type, flushLogs);
}

function emit(line: string, urgent: boolean): void {
  if (!hooked) hookExit();
  pending.push(line);
  pendingChars += line.length;
  if (urgent || pendingChars >= FLUSH_AT_CHARS) return flushLogs();
  if (timer === undefined) {
    timer = setTimeout(flushLogs, FLUSH_AFTER_MS);
    // A quiet process may exit while a flush is scheduled: the exit hook writes the lines.
    (timer as { unref?: () => void }).unref?.();
  }
}

/** One JSON object per line on stdout, the shape log collectors in Kubernetes expect; never a credential. */
export function createLogger(service: string, level: LogLevel = "info"): Logger {
  const threshold = LEVELS[level];
  const write = (lvl: Exclude<LogLevel, "silent">) => (message: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] < threshold) return;
    emit(JSON.stringify({ time: new Date().toISOString(), level: lvl, service, message, ...(fields && redact(fields)) }), LEVELS[lvl] >= LEVELS.warn);
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

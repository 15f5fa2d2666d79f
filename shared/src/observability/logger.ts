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

/** Field names come from the code, a few dozen: each is tested against SECRET_FIELD once. */
const secretNames = new Map<string, boolean>();
const MAX_REMEMBERED_NAMES = 1000;

function isSecretName(name: string): boolean {
  let secret = secretNames.get(name);
  if (secret === undefined) {
    secret = SECRET_FIELD.test(name);
    if (secretNames.size < MAX_REMEMBERED_NAMES) secretNames.set(name, secret);
  }
  return secret;
}

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  let clean: Record<string, unknown> | undefined;
  for (const name in fields) {
    if (isSecretName(name)) (clean ??= { ...fields })[name] = "[redacted]";
  }
  return clean ?? fields;
}

/** Lines logged within the same millisecond share one formatted time. */
let stampedAt = Number.NaN;
let stamp = "";
function timeNow(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedAt = now;
    stamp = new Date(now).toISOString();
  }
  return stamp;
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
  const write = (lvl: Exclude<LogLevel, "silent">) => {
    // What follows the time is the same on every line of this logger and level: written once.
    const afterTime = `","level":${JSON.stringify(lvl)},"service":${JSON.stringify(service)},"message":`;
    return (message: string, fields?: Record<string, unknown>) => {
      if (LEVELS[lvl] < threshold) return;
      const urgent = LEVELS[lvl] >= LEVELS.warn;
      if (fields && ("time" in fields || "level" in fields || "service" in fields || "message" in fields)) {
        return emit(JSON.stringify({ time: timeNow(), level: lvl, service, message, ...redact(fields) }), urgent);
      }
      // The fields' object spliced after the message: the same line as the object above, without copying the fields.
      const rest = fields ? JSON.stringify(redact(fields)) : "{}";
      emit(`{"time":"${timeNow()}${afterTime}${JSON.stringify(message)}${rest === "{}" ? "}" : `,${rest.slice(1)}`}`, urgent);
    };
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

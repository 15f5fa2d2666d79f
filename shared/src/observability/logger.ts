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

/** One JSON object per line on stdout, the shape log collectors in Kubernetes expect; never a credential. */
export function createLogger(service: string, level: LogLevel = "info"): Logger {
  const threshold = LEVELS[level];
  const write = (lvl: Exclude<LogLevel, "silent">) => (message: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] < threshold) return;
    console.log(JSON.stringify({ time: new Date().toISOString(), level: lvl, service, message, ...(fields && redact(fields)) }));
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

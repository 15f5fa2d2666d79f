/**
 * What `npm start` prints. JSON mode: every process writes its JSON lines
 * straight to the launcher's stdout (the launcher never touches them) and the
 * launcher's own lines are JSON too. Pretty mode, for a person at a terminal:
 * one readable line per log entry, per-request lines folded into a summary
 * every few seconds (5xx shown one by one), errors in red.
 */
export type LogFormat = "json" | "pretty";
type Level = "info" | "warn" | "error";

export interface LauncherOutput {
  format: LogFormat;
  /** A line a process wrote; only called in pretty mode (JSON mode shares stdout). */
  child(name: string, line: string): void;
  /** A line of the launcher itself. */
  say(level: Level, message: string, fields?: Record<string, unknown>): void;
  /** Text for a person (the banner): as is in pretty mode, in a JSON line's `text` field otherwise. */
  banner(message: string, text: string, fields?: Record<string, unknown>): void;
  /** Why the launcher cannot go on: one plain line on stderr, whatever the format. */
  fatal(message: string): void;
  /** Prints the pending request summary and stops the timer. */
  close(): void;
}

const COLORS = { red: 31, yellow: 33, green: 32, cyan: 36, dim: 2, bold: 1 } as const;
type Color = keyof typeof COLORS;

const clock = (date = new Date()) => date.toTimeString().slice(0, 8);
const number = (value: number) => value.toLocaleString("en-US");

interface RequestTally {
  statuses: Map<number, number>;
  count: number;
  totalMs: number;
  maxMs: number;
}

/** Reads a number that follows `"field":` in a JSON line, without parsing the line. */
function numberAfter(line: string, field: string): number {
  const at = line.indexOf(field);
  if (at === -1) return NaN;
  return Number.parseFloat(line.slice(at + field.length, at + field.length + 12));
}

function formatFields(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${typeof value === "string" ? (/[\s"]/.test(value) ? JSON.stringify(value) : value) : JSON.stringify(value)}`)
    .join(" ");
}

export function launcherOutput(options: { format: LogFormat; color: boolean; summaryEveryMs?: number; stdout?: (text: string) => void; stderr?: (text: string) => void }): LauncherOutput {
  const stdout = options.stdout ?? ((text: string) => process.stdout.write(text));
  const stderr = options.stderr ?? ((text: string) => process.stderr.write(text));
  const paint = (color: Color, text: string) => (options.color ? `\x1b[${COLORS[color]}m${text}\x1b[0m` : text);
  const levelColor: Record<string, Color | undefined> = { warn: "yellow", error: "red", fatal: "red" };
  const width = 9;

  const pretty = (time: string, name: string, level: string, message: string, rest: string) => {
    const color = levelColor[level];
    const head = `${paint("dim", time)} ${paint("cyan", name.padEnd(width))}`;
    const body = `${level === "info" ? "" : `${level.toUpperCase()} `}${message}${rest ? ` ${paint("dim", rest)}` : ""}`;
    (color ? stderr : stdout)(`${head} ${color ? paint(color, body) : body}\n`);
  };

  const tallies = new Map<string, RequestTally>();
  const summarise = () => {
    for (const [name, tally] of tallies) {
      if (tally.count === 0) continue;
      const statuses = [...tally.statuses.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([status, count]) => `${status} ×${number(count)}`)
        .join(", ");
      const every = Math.round((options.summaryEveryMs ?? 10_000) / 1000);
      const latency = `avg ${(tally.totalMs / tally.count).toFixed(1)} ms, max ${tally.maxMs.toFixed(0)} ms`;
      pretty(clock(), name, "info", `${number(tally.count)} request${tally.count === 1 ? "" : "s"} in the last ${every} s: ${statuses}`, latency);
      tallies.set(name, { statuses: new Map(), count: 0, totalMs: 0, maxMs: 0 });
    }
  };
  const timer = options.format === "pretty" ? setInterval(summarise, options.summaryEveryMs ?? 10_000) : undefined;
  timer?.unref?.();

  const entry = (name: string, line: string) => {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return pretty(clock(), name, "info", line, "");
    }
    const { time, level, service: _service, message, ...fields } = parsed;
    const shown = typeof time === "string" ? clock(new Date(time)) : clock();
    pretty(shown, name, typeof level === "string" ? level : "info", String(message ?? ""), formatFields(fields));
  };

  return {
    format: options.format,
    child(name, line) {
      // A request line is counted from two substrings; only a 5xx one is parsed and shown.
      if (line.charCodeAt(0) === 123 && line.includes('"message":"request"')) {
        const status = numberAfter(line, '"status":');
        if (status >= 500) entry(name, line);
        let tally = tallies.get(name);
        if (!tally) tallies.set(name, (tally = { statuses: new Map(), count: 0, totalMs: 0, maxMs: 0 }));
        tally.count += 1;
        tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
        const latency = numberAfter(line, '"latency_ms":');
        if (latency >= 0) {
          tally.totalMs += latency;
          if (latency > tally.maxMs) tally.maxMs = latency;
        }
        return;
      }
      entry(name, line);
    },
    say(level, message, fields = {}) {
      if (options.format === "json") {
        stdout(`${JSON.stringify({ time: new Date().toISOString(), level, service: "launcher", message, ...fields })}\n`);
        return;
      }
      pretty(clock(), "launcher", level, message, formatFields(fields));
    },
    banner(message, text, fields = {}) {
      if (options.format === "json") stdout(`${JSON.stringify({ time: new Date().toISOString(), level: "info", service: "launcher", message, ...fields })}\n`);
      else stdout(`${text}\n`);
    },
    fatal(message) {
      stderr(`${options.format === "pretty" ? paint("red", message) : message}\n`);
    },
    close() {
      if (timer) clearInterval(timer);
      summarise();
    },
  };
}

/** LOG_FORMAT=json|pretty; otherwise pretty on a terminal and JSON when the output goes elsewhere. */
export function chooseFormat(requested: string | undefined, isTerminal: boolean): LogFormat {
  if (requested === "json" || requested === "pretty") return requested;
  return isTerminal ? "pretty" : "json";
}

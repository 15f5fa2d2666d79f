import { PERMISSION_LEVELS, ROLES, SCOPES } from "@ws/shared";
import type { AdminClient } from "./admin-client";

/** A mistake in the command line itself, found before the API is called. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export interface OptionSpec {
  type: "string" | "boolean";
  multiple?: boolean;
  /** How the value is shown in the help, e.g. "<email>". */
  value?: string;
  help: string;
  required?: boolean;
}

export interface CommandInput {
  /** Positional arguments by the names the command declares. */
  args: Record<string, string>;
  options: Record<string, string | string[] | boolean | undefined>;
}

/** One management operation of the CLI: its words, arguments, options, the call, and how its answer is shown. */
export interface Command<Result = unknown> {
  /** The words that name it, e.g. "key create". */
  name: string;
  summary: string;
  args: readonly string[];
  options?: Record<string, OptionSpec>;
  run(admin: AdminClient, input: CommandInput): Promise<Result>;
  /** The answer for a person; without it, the fields one per line. */
  show?(result: Result): string;
  /** What --quiet prints: the id of what was made, by default. */
  quiet?(result: Result): string;
}

/** Types one entry by its own result, then erases the result type so entries of every kind fit one table. */
export function defineCommand<Result>(command: Command<Result>): Command {
  return command as unknown as Command;
}

// Option readers: a wrong value is refused naming the allowed ones, from the same lists the API validates with.

export function stringOption(input: CommandInput, name: string): string | undefined {
  const value = input.options[name];
  return typeof value === "string" ? value : undefined;
}

export function listOption(input: CommandInput, name: string): string[] | undefined {
  const value = input.options[name];
  return Array.isArray(value) ? value : undefined;
}

export function role(value: string | undefined): string | undefined {
  if (value !== undefined && !(ROLES as readonly string[]).includes(value)) throw new UsageError(`--role ${value} is not a role; roles are ${ROLES.join(", ")}.`);
  return value;
}

export function scopes(values: string[] | undefined): string[] | undefined {
  for (const value of values ?? []) {
    if (!(SCOPES as readonly string[]).includes(value)) throw new UsageError(`--scope ${value} is not a scope; scopes are ${SCOPES.join(", ")}.`);
  }
  return values;
}

/** The levels of each resource, e.g. "docs: none, read, write, full". */
export function permissionLevelsText(): string[] {
  return Object.entries(PERMISSION_LEVELS).map(([resource, levels]) => `${resource}: ${Object.keys(levels).join(", ")}`);
}

/** `--permission docs=full` entries as the API's permissions object. */
export function permissions(values: string[] | undefined): Record<string, string> | undefined {
  if (!values) return undefined;
  const result: Record<string, string> = {};
  for (const entry of values) {
    const [resource = "", level, extra] = entry.split("=");
    const levels = (PERMISSION_LEVELS as Record<string, Record<string, unknown>>)[resource];
    if (level === undefined || extra !== undefined) throw new UsageError(`--permission ${entry} must be resource=level, e.g. docs=full.`);
    if (!levels) throw new UsageError(`--permission ${entry}: "${resource}" is not a resource; resources are ${Object.keys(PERMISSION_LEVELS).join(", ")}.`);
    if (!Object.hasOwn(levels, level)) throw new UsageError(`--permission ${entry}: ${resource} levels are ${Object.keys(levels).join(", ")}.`);
    result[resource] = level;
  }
  return result;
}

export function booleanText(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === "true" || value === "false") return value === "true";
  throw new UsageError(`--${name} must be true or false, not "${value}".`);
}

export function wholeNumber(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number, not "${value}".`);
  return Number(value);
}

export function dateTime(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(value) || Number.isNaN(Date.parse(value))) {
    throw new UsageError(`--${name} must be a date-time with a time zone, e.g. 2030-01-31T18:00:00Z, not "${value}".`);
  }
  return value;
}

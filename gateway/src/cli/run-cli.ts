import { parseArgs } from "node:util";
import { ROLE_SCOPES, ROLES, SCOPES } from "@ws/shared";
import { adminClient, type AdminClient } from "./admin-client";
import { permissionLevelsText, UsageError, type Command, type OptionSpec } from "./command";
import { COMMANDS } from "./commands";
import { failureLine, fieldLines } from "./output";

const DEFAULT_ADMIN_URL = "http://localhost:8081";

const COMMON_OPTIONS: Record<string, OptionSpec & { short?: string }> = {
  json: { type: "boolean", help: "print the API's answer as JSON" },
  quiet: { type: "boolean", short: "q", help: "print only the id of what was made (ids, one a line, for a list)" },
  help: { type: "boolean", short: "h", help: "this help; with a command, that command's options" },
};

function optionUsage(name: string, spec: OptionSpec): string {
  const flag = `--${name}${spec.type === "string" ? ` ${spec.value ?? "<value>"}` : ""}`;
  return `${spec.required ? flag : `[${flag}]`}${spec.multiple ? "..." : ""}`;
}

function commandUsage(command: Command): string {
  const options = Object.entries(command.options ?? {}).map(([name, spec]) => optionUsage(name, spec));
  return [command.name, ...command.args.map((arg) => `<${arg}>`), ...options].join(" ");
}

function rolesText(): string {
  const every = ROLES.filter((role) => ROLE_SCOPES[role].length === SCOPES.length);
  const others = ROLES.filter((role) => !every.includes(role)).map((role) => `${role}: ${ROLE_SCOPES[role].join(", ")}`);
  return [`${every.join(", ")}: every scope`, ...others].join("; ");
}

export function usage(adminUrl: string): string {
  return [
    "Usage: npm run admin -- <command> [options]",
    "",
    `Calls the management API at ADMIN_URL (now ${adminUrl}) with ADMIN_TOKEN, both read from`,
    "the environment or from a .env file in the current folder (the environment wins).",
    "",
    "Commands:",
    ...COMMANDS.map((command) => `  ${commandUsage(command)}\n      ${command.summary}`),
    "",
    "Options of every command:",
    ...Object.entries(COMMON_OPTIONS).map(([name, spec]) => `  ${spec.short ? `-${spec.short}, ` : ""}--${name}`.padEnd(16) + spec.help),
    "",
    `Scopes (--scope): ${SCOPES.join(", ")}`,
    "Permission levels (--permission resource=level), each level includes the ones before it:",
    ...permissionLevelsText().map((line) => `  ${line}`),
    `Roles (--role), and the scopes their keys may use: ${rolesText()}`,
  ].join("\n");
}

function commandHelp(command: Command): string {
  const options = Object.entries({ ...command.options, ...COMMON_OPTIONS }).map(
    ([name, spec]) => `  ${optionUsage(name, spec).replace(/^\[|\](\.\.\.)?$/g, "")}`.padEnd(34) + spec.help,
  );
  return [`Usage: npm run admin -- ${commandUsage(command)}`, "", command.summary, "", "Options:", ...options].join("\n");
}

function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  const words = argv.filter((arg) => !arg.startsWith("-")).slice(0, 2).join(" ");
  const command = COMMANDS.find((candidate) => candidate.name === words);
  if (!command) return undefined;
  const [first, second] = command.name.split(" ");
  const rest = [...argv];
  rest.splice(rest.indexOf(first!), 1);
  rest.splice(rest.indexOf(second!), 1);
  return { command, rest };
}

/** The client, refusing to call without a token only once the command's own arguments were checked. */
function withToken(adminUrl: string, token: string | undefined): AdminClient {
  const client = adminClient(adminUrl, token ?? "");
  return new Proxy(client, {
    get(target, name) {
      const value = target[name as keyof AdminClient];
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (!token) throw new UsageError("ADMIN_TOKEN is not set: export it, or put ADMIN_TOKEN=… in a .env file here (npm start prints the token of its run).");
        return (value as (...args: unknown[]) => unknown)(...args);
      };
    },
  });
}

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Runs one CLI command; returns the exit code (0 done, 1 the API or the network failed, 2 the command line is wrong). */
export async function runCli(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  const adminUrl = env.ADMIN_URL || DEFAULT_ADMIN_URL;
  const found = findCommand(argv);
  if (!found) {
    const helpAsked = argv.length === 0 || argv.includes("--help") || argv.includes("-h") || argv[0] === "help";
    const words = argv.filter((arg) => !arg.startsWith("-")).slice(0, 2).join(" ");
    if (helpAsked && !words.includes(" ")) {
      io.stdout(`${usage(adminUrl)}\n`);
      return 0;
    }
    io.stderr(`Unknown command "${words}". Commands: ${COMMANDS.map((command) => command.name).join(", ")}. See npm run admin -- --help.\n`);
    return 2;
  }
  const { command, rest } = found;
  try {
    const options = Object.fromEntries(
      Object.entries({ ...command.options, ...COMMON_OPTIONS }).map(([name, spec]) => [
        name,
        { type: spec.type, ...(spec.multiple ? { multiple: true } : {}), ...("short" in spec && spec.short ? { short: spec.short as string } : {}) },
      ]),
    );
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
    } catch (error) {
      throw new UsageError(`${(error as Error).message.split(/\.( |$)/)[0]}. See npm run admin -- ${command.name} --help.`);
    }
    const values = parsed.values as Record<string, string | string[] | boolean | undefined>;
    if (values.help) {
      io.stdout(`${commandHelp(command)}\n`);
      return 0;
    }
    const positionals = parsed.positionals;
    if (positionals.length < command.args.length) throw new UsageError(`Missing <${command.args[positionals.length]}>. Usage: npm run admin -- ${commandUsage(command)}`);
    if (positionals.length > command.args.length) throw new UsageError(`Unexpected "${positionals[command.args.length]}" (quote a name with spaces). Usage: npm run admin -- ${commandUsage(command)}`);
    for (const [name, spec] of Object.entries(command.options ?? {})) {
      if (spec.required && values[name] === undefined) throw new UsageError(`Missing ${optionUsage(name, spec)}. Usage: npm run admin -- ${commandUsage(command)}`);
    }
    const args = Object.fromEntries(command.args.map((name, i) => [name, positionals[i]!]));
    const result = await command.run(withToken(adminUrl, env.ADMIN_TOKEN), { args, options: values });
    if (values.json) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    else if (values.quiet) io.stdout(`${command.quiet ? command.quiet(result) : String((result as { id?: unknown }).id ?? "")}\n`);
    else io.stdout(`${command.show ? command.show(result) : fieldLines(result as Record<string, unknown>)}\n`);
    return 0;
  } catch (error) {
    io.stderr(`${failureLine(error, adminUrl)}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}

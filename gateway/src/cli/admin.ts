import { parseArgs } from "node:util";
import { adminClient } from "./admin-client";

const USAGE = `Usage: npm run admin -- <command> [options]
Talks to the management API at ADMIN_URL (default http://localhost:8081) with ADMIN_TOKEN.

  workspace create <name>
  team create <workspace-id> <name>
  member add <workspace-id> --email <email> --role owner|admin|member|guest [--name <name>] [--team <team-id>]...
  member update <workspace-id> <member-id> [--role <role>] [--active true|false] [--team <team-id>]...
  key create <workspace-id> --name <name> --created-by <member-id> [--scope <scope>]... [--permission docs=full]...
             [--team <team-id>]... [--expires-at <ISO date-time>] [--rate-limit <per minute>] [--streaming]
  key list <workspace-id>
  key revoke <workspace-id> <key-id>`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    email: { type: "string" },
    name: { type: "string" },
    role: { type: "string" },
    active: { type: "string" },
    team: { type: "string", multiple: true },
    "created-by": { type: "string" },
    scope: { type: "string", multiple: true },
    permission: { type: "string", multiple: true },
    "expires-at": { type: "string" },
    "rate-limit": { type: "string" },
    streaming: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  },
});

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

const token = process.env.ADMIN_TOKEN;
if (values.help || positionals.length === 0) fail("");
if (!token) fail("ADMIN_TOKEN is not set.");
const admin = adminClient(process.env.ADMIN_URL ?? "http://localhost:8081", token);
const [noun, verb, ...args] = positionals;
const need = (index: number, what: string) => args[index] ?? fail(`Missing ${what}.`);

async function run(): Promise<unknown> {
  switch (`${noun} ${verb}`) {
    case "workspace create":
      return admin.createWorkspace(need(0, "the workspace name"));
    case "team create":
      return admin.createTeam(need(0, "the workspace id"), need(1, "the team name"));
    case "member add":
      return admin.addMember(need(0, "the workspace id"), {
        email: values.email ?? fail("Missing --email."),
        role: values.role ?? fail("Missing --role."),
        name: values.name,
        team_ids: values.team,
      });
    case "member update":
      return admin.updateMember(need(0, "the workspace id"), need(1, "the member id"), {
        role: values.role,
        active: values.active === undefined ? undefined : values.active === "true",
        team_ids: values.team,
      });
    case "key create":
      return admin.createKey(need(0, "the workspace id"), {
        name: values.name ?? fail("Missing --name."),
        created_by: values["created-by"] ?? fail("Missing --created-by."),
        scopes: values.scope,
        permissions: values.permission && Object.fromEntries(values.permission.map((entry) => entry.split("=", 2))),
        team_ids: values.team,
        expires_at: values["expires-at"],
        rate_limit_per_minute: values["rate-limit"] === undefined ? undefined : Number(values["rate-limit"]),
        streaming: values.streaming,
      });
    case "key list":
      return admin.listKeys(need(0, "the workspace id"));
    case "key revoke":
      await admin.revokeKey(need(0, "the workspace id"), need(1, "the key id"));
      return { revoked: args[1] };
    default:
      return fail(`Unknown command "${positionals.join(" ")}".`);
  }
}

try {
  console.log(JSON.stringify(await run(), null, 2));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}

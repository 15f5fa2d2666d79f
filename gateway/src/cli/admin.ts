import { parseArgs } from "node:util";
import { adminClient } from "./admin-client";

const USAGE = `Usage: npm run admin -- <command> [options]
Talks to the management API at ADMIN_URL (default http://localhost:8081) with ADMIN_TOKEN.

  workspace list [--name <text>] [--page <n>] [--per-page <n>]
  workspace create <name>
  workspace get <workspace-id>
  workspace delete <workspace-id>         (everything in it, pages and events included)
  team list <workspace-id>
  team create <workspace-id> <name>
  member list <workspace-id>
  member add <workspace-id> --email <email> --role owner|admin|member|guest [--name <name>] [--team <team-id>]...
  member get <workspace-id> <member-id>
  member update <workspace-id> <member-id> [--role <role>] [--active true|false] [--name <name>] [--team <team-id>]...
  key create <workspace-id> --name <name> --created-by <member-id> [--scope <scope>]... [--permission docs=full]...
             [--team <team-id>]... [--expires-at <ISO date-time>] [--rate-limit <per minute>] [--streaming]
  key list <workspace-id>
  key get <workspace-id> <key-id>
  key update <workspace-id> <key-id> [--name <name>] [--rate-limit <per minute>|default] [--expires-at <ISO date-time>|never]
  key rotate <workspace-id> <key-id> [--grace-seconds <0..86400> | --old-key-expires-at <ISO date-time>]
  key revoke <workspace-id> <key-id>
  audit-log list <workspace-id> [--page <n>] [--per-page <n>]`;

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
    page: { type: "string" },
    "per-page": { type: "string" },
    "grace-seconds": { type: "string" },
    "old-key-expires-at": { type: "string" },
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
const number = (value: string | undefined) => (value === undefined ? undefined : Number(value));
const paging = () => ({ page: number(values.page), per_page: number(values["per-page"]) });

async function run(): Promise<unknown> {
  switch (`${noun} ${verb}`) {
    case "workspace list":
      return admin.listWorkspaces({ ...paging(), name: values.name });
    case "workspace create":
      return admin.createWorkspace(need(0, "the workspace name"));
    case "workspace get":
      return admin.getWorkspace(need(0, "the workspace id"));
    case "workspace delete":
      await admin.deleteWorkspace(need(0, "the workspace id"));
      return { deleted: args[0] };
    case "team list":
      return admin.listTeams(need(0, "the workspace id"), paging());
    case "member list":
      return admin.listMembers(need(0, "the workspace id"), paging());
    case "member get":
      return admin.getMember(need(0, "the workspace id"), need(1, "the member id"));
    case "key get":
      return admin.getKey(need(0, "the workspace id"), need(1, "the key id"));
    case "key update":
      return admin.updateKey(need(0, "the workspace id"), need(1, "the key id"), {
        name: values.name,
        rate_limit_per_minute: values["rate-limit"] === undefined ? undefined : values["rate-limit"] === "default" ? null : Number(values["rate-limit"]),
        expires_at: values["expires-at"] === undefined ? undefined : values["expires-at"] === "never" ? null : values["expires-at"],
      });
    case "key rotate":
      return admin.rotateKey(need(0, "the workspace id"), need(1, "the key id"), {
        grace_seconds: number(values["grace-seconds"]),
        old_key_expires_at: values["old-key-expires-at"],
      });
    case "audit-log list":
      return admin.auditLog(need(0, "the workspace id"), paging());
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
        name: values.name,
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

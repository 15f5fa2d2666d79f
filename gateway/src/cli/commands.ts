import type { ApiKey, AuditEntry, CreatedApiKey, List, Member, Team, Workspace } from "./admin-client";
import { booleanText, dateTime, defineCommand, listOption, permissions, role, scopes, stringOption, UsageError, wholeNumber } from "./command";
import { fieldLines, table } from "./output";

/** The --page and --per-page options of a list command. */
function paging(input: Parameters<typeof stringOption>[0]) {
  return { page: wholeNumber("page", stringOption(input, "page")), per_page: wholeNumber("per-page", stringOption(input, "per-page")) };
}

/** Every operation of the CLI. A new management operation is one more entry here. */
export const COMMANDS = [
  defineCommand<List<Workspace>>({
    name: "workspace list",
    summary: "List the workspaces, optionally those whose name contains a text.",
    args: [],
    options: {
      name: { type: "string", value: "<text>", help: "only workspaces whose name contains it" },
      page: { type: "string", value: "<n>", help: "result page, from 1" },
      "per-page": { type: "string", value: "<n>", help: "rows per page, up to 100" },
    },
    run: (admin, input) => admin.listWorkspaces({ name: stringOption(input, "name"), ...paging(input) }),
    show: (list) => table(list, ["id", "name", "created_at"]),
    quiet: (list) => list.data.map((workspace) => workspace.id).join("\n"),
  }),

  defineCommand({
    name: "workspace get",
    summary: "Show one workspace.",
    args: ["workspace-id"],
    run: (admin, { args }) => admin.getWorkspace(args["workspace-id"]!),
  }),

  defineCommand({
    name: "workspace delete",
    summary: "Delete a workspace and everything in it (keys, members, teams, pages, calendars, events).",
    args: ["workspace-id"],
    run: async (admin, { args }) => {
      await admin.deleteWorkspace(args["workspace-id"]!);
      return { id: args["workspace-id"]!, deleted: true };
    },
  }),

  defineCommand({
    name: "workspace create",
    summary: "Make a workspace.",
    args: ["name"],
    run: (admin, { args }) => admin.createWorkspace(args.name!),
  }),

  defineCommand({
    name: "team create",
    summary: "Make a team in a workspace.",
    args: ["workspace-id", "name"],
    run: (admin, { args }) => admin.createTeam(args["workspace-id"]!, args.name!),
  }),

  defineCommand<List<Team>>({
    name: "team list",
    summary: "List a workspace's teams.",
    args: ["workspace-id"],
    options: {
      page: { type: "string", value: "<n>", help: "result page, from 1" },
      "per-page": { type: "string", value: "<n>", help: "rows per page, up to 100" },
    },
    run: (admin, input) => admin.listTeams(input.args["workspace-id"]!, paging(input)),
    show: (list) => table(list, ["id", "name"]),
    quiet: (list) => list.data.map((team) => team.id).join("\n"),
  }),

  defineCommand<List<Member>>({
    name: "member list",
    summary: "List a workspace's members.",
    args: ["workspace-id"],
    options: {
      page: { type: "string", value: "<n>", help: "result page, from 1" },
      "per-page": { type: "string", value: "<n>", help: "rows per page, up to 100" },
    },
    run: (admin, input) => admin.listMembers(input.args["workspace-id"]!, paging(input)),
    show: (list) => table(list, ["id", "email", "name", "role", "active", "team_ids"]),
    quiet: (list) => list.data.map((member) => member.id).join("\n"),
  }),

  defineCommand({
    name: "member get",
    summary: "Show one member.",
    args: ["workspace-id", "member-id"],
    run: (admin, { args }) => admin.getMember(args["workspace-id"]!, args["member-id"]!),
  }),

  defineCommand({
    name: "member add",
    summary: "Add a member to a workspace.",
    args: ["workspace-id"],
    options: {
      email: { type: "string", value: "<email>", help: "the member's email, unique in the workspace", required: true },
      role: { type: "string", value: "<role>", help: "owner, admin, member or guest", required: true },
      name: { type: "string", value: "<name>", help: "a display name" },
      team: { type: "string", multiple: true, value: "<team-id>", help: "a team the member belongs to (repeatable)" },
    },
    run: (admin, input) =>
      admin.addMember(input.args["workspace-id"]!, {
        email: stringOption(input, "email")!,
        role: role(stringOption(input, "role"))!,
        name: stringOption(input, "name"),
        team_ids: listOption(input, "team"),
      }),
  }),

  defineCommand({
    name: "member update",
    summary: "Change a member's role, teams or whether it is active.",
    args: ["workspace-id", "member-id"],
    options: {
      role: { type: "string", value: "<role>", help: "owner, admin, member or guest" },
      name: { type: "string", value: "<name>", help: "a display name" },
      active: { type: "string", value: "true|false", help: "false deactivates the member: its keys stop working" },
      team: { type: "string", multiple: true, value: "<team-id>", help: "replaces the member's teams (repeatable)" },
    },
    run: (admin, input) => {
      const changes = {
        role: role(stringOption(input, "role")),
        name: stringOption(input, "name"),
        active: booleanText("active", stringOption(input, "active")),
        team_ids: listOption(input, "team"),
      };
      if (Object.values(changes).every((value) => value === undefined)) throw new UsageError("Give at least one of --role, --name, --active or --team.");
      return admin.updateMember(input.args["workspace-id"]!, input.args["member-id"]!, changes);
    },
  }),

  defineCommand<CreatedApiKey>({
    name: "key create",
    summary: "Make an API key; the full key is shown only this once.",
    args: ["workspace-id"],
    options: {
      name: { type: "string", value: "<name>", help: "what the key is for, e.g. \"ci deploy (prod)\"", required: true },
      "created-by": { type: "string", value: "<member-id>", help: "the member whose role limits the key", required: true },
      scope: { type: "string", multiple: true, value: "<scope>", help: "a scope, e.g. docs:read (repeatable)" },
      permission: { type: "string", multiple: true, value: "<resource=level>", help: "a permission level, e.g. docs=full (repeatable)" },
      team: { type: "string", multiple: true, value: "<team-id>", help: "limit the key to a team (repeatable); none: the whole workspace" },
      "expires-at": { type: "string", value: "<date-time>", help: "when the key stops working, e.g. 2030-01-31T18:00:00Z" },
      "rate-limit": { type: "string", value: "<per minute>", help: "requests a minute, instead of the default" },
      streaming: { type: "boolean", help: "allow streaming workflow runs" },
    },
    run: (admin, input) => {
      const scopeList = scopes(listOption(input, "scope"));
      const permissionLevels = permissions(listOption(input, "permission"));
      if (!scopeList && !permissionLevels) throw new UsageError("Give the key at least one --scope or --permission.");
      return admin.createKey(input.args["workspace-id"]!, {
        name: stringOption(input, "name")!,
        created_by: stringOption(input, "created-by")!,
        scopes: scopeList,
        permissions: permissionLevels,
        team_ids: listOption(input, "team"),
        expires_at: dateTime("expires-at", stringOption(input, "expires-at")),
        rate_limit_per_minute: wholeNumber("rate-limit", stringOption(input, "rate-limit")),
        streaming: input.options.streaming === true ? true : undefined,
      });
    },
    show: (key) => `${fieldLines({ ...key, key: undefined })}\n\nThe key (shown only now, store it safely):\n  ${key.key}`,
  }),

  defineCommand<List<ApiKey>>({
    name: "key list",
    summary: "List a workspace's keys (never their secrets).",
    args: ["workspace-id"],
    options: {
      page: { type: "string", value: "<n>", help: "result page, from 1" },
      "per-page": { type: "string", value: "<n>", help: "keys per page, up to 100" },
    },
    run: (admin, input) =>
      admin.listKeys(input.args["workspace-id"]!, {
        page: wholeNumber("page", stringOption(input, "page")),
        per_page: wholeNumber("per-page", stringOption(input, "per-page")),
      }),
    show: (list) =>
      table(list, ["id", "prefix", "name", "scopes", "team_ids", "expires_at", "revoked_at", "last_used_at"]),
    quiet: (list) => list.data.map((key) => key.id).join("\n"),
  }),

  defineCommand<ApiKey>({
    name: "key get",
    summary: "Show one key (never its secret), with the scopes it can use now.",
    args: ["workspace-id", "key-id"],
    run: (admin, { args }) => admin.getKey(args["workspace-id"]!, args["key-id"]!),
  }),

  defineCommand<ApiKey>({
    name: "key update",
    summary: "Change a key's name, rate limit or expiry.",
    args: ["workspace-id", "key-id"],
    options: {
      name: { type: "string", value: "<name>", help: "the key's new name" },
      "rate-limit": { type: "string", value: "<per minute>|default", help: "requests a minute; default: the gateway's default" },
      "expires-at": { type: "string", value: "<date-time>|never", help: "when the key stops working; never: no expiry" },
    },
    run: (admin, input) => {
      const rateLimit = stringOption(input, "rate-limit");
      const expiresAt = stringOption(input, "expires-at");
      const changes = {
        name: stringOption(input, "name"),
        rate_limit_per_minute: rateLimit === "default" ? null : wholeNumber("rate-limit", rateLimit),
        expires_at: expiresAt === "never" ? null : dateTime("expires-at", expiresAt),
      };
      if (Object.values(changes).every((value) => value === undefined)) throw new UsageError("Give at least one of --name, --rate-limit or --expires-at.");
      return admin.updateKey(input.args["workspace-id"]!, input.args["key-id"]!, changes);
    },
  }),

  defineCommand<CreatedApiKey>({
    name: "key rotate",
    summary: "Give a key a new secret; the old one keeps working for a grace period (at most 24 h).",
    args: ["workspace-id", "key-id"],
    options: {
      "grace-seconds": { type: "string", value: "<0..86400>", help: "how long the old secret keeps working" },
      "old-key-expires-at": { type: "string", value: "<date-time>", help: "when the old secret stops working (at most 24 h ahead)" },
    },
    run: (admin, input) =>
      admin.rotateKey(input.args["workspace-id"]!, input.args["key-id"]!, {
        grace_seconds: wholeNumber("grace-seconds", stringOption(input, "grace-seconds")),
        old_key_expires_at: dateTime("old-key-expires-at", stringOption(input, "old-key-expires-at")),
      }),
    show: (key) => `${fieldLines({ ...key, key: undefined })}\n\nThe new key (shown only now, store it safely):\n  ${key.key}`,
  }),

  defineCommand<List<AuditEntry>>({
    name: "audit-log list",
    summary: "List a workspace's management changes, newest first.",
    args: ["workspace-id"],
    options: {
      page: { type: "string", value: "<n>", help: "result page, from 1" },
      "per-page": { type: "string", value: "<n>", help: "rows per page, up to 100" },
    },
    run: (admin, input) => admin.auditLog(input.args["workspace-id"]!, paging(input)),
    show: (list) => table(list, ["created_at", "action", "resource_type", "resource_id", "actor", "request_id"]),
  }),

  defineCommand({
    name: "key revoke",
    summary: "Revoke a key: it stops working at once, at every gateway.",
    args: ["workspace-id", "key-id"],
    run: async (admin, { args }) => {
      await admin.revokeKey(args["workspace-id"]!, args["key-id"]!);
      return { id: args["key-id"]!, revoked: true };
    },
  }),
];

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PERMISSION_LEVELS, ROLES, SCOPES } from "@ws/shared";
import { COMMANDS } from "./commands";
import { environmentWithEnvFile, readEnvFile } from "./env-file";
import { runCli } from "./run-cli";

const TOKEN = "a-token-of-sixteen-chars";

/** A stand-in for the management API that records what it was asked and answers what the test sets. */
let answer: { status: number; body: unknown } = { status: 200, body: {} };
const received: { method: string; path: string; authorization: string | null; body: unknown }[] = [];
let server: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      received.push({ method: request.method, path: url.pathname + url.search, authorization: request.headers.get("authorization"), body: request.body ? await request.json() : undefined });
      return Response.json(answer.body, { status: answer.status });
    },
  });
});
afterAll(() => server.stop(true));

async function cli(args: string[], env: Record<string, string | undefined> = { ADMIN_URL: `http://127.0.0.1:${server.port}`, ADMIN_TOKEN: TOKEN }) {
  const out: string[] = [];
  const err: string[] = [];
  received.length = 0;
  const code = await runCli(args, env, { stdout: (text) => out.push(text), stderr: (text) => err.push(text) });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

describe("the admin CLI's help", () => {
  test("when asked for help, then it lists every command, every scope, every permission level and every role", async () => {
    const { code, stdout } = await cli(["--help"]);
    expect(code).toBe(0);
    for (const command of COMMANDS) expect(stdout).toContain(command.name);
    for (const scope of SCOPES) expect(stdout).toContain(scope);
    for (const [resource, levels] of Object.entries(PERMISSION_LEVELS)) expect(stdout).toContain(`${resource}: ${Object.keys(levels).join(", ")}`);
    for (const role of ROLES) expect(stdout).toContain(role);
    expect(stdout).toContain("guest: lists:read, docs:read, calendar:read, workflows:read, agents:read");
  });

  test("when asked for one command's help, then it shows that command's options with what each means", async () => {
    const { code, stdout } = await cli(["key", "create", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toStartWith("Usage: npm run admin -- key create <workspace-id> --name <name> --created-by <member-id>");
    expect(stdout).toContain("--permission <resource=level>");
    expect(stdout).toContain("--json");
  });
});

describe("when the command line is wrong", () => {
  const cases: [string, string[], string][] = [
    ["a permission level does not exist", ["key", "create", "ws", "--name", "n", "--created-by", "m", "--permission", "docs=admin"], "--permission docs=admin: docs levels are none, read, write, full."],
    ["a permission names no resource", ["key", "create", "ws", "--name", "n", "--created-by", "m", "--permission", "files=read"], '--permission files=read: "files" is not a resource; resources are lists, docs, calendar, workflows, agents.'],
    ["a scope does not exist", ["key", "create", "ws", "--name", "n", "--created-by", "m", "--scope", "docs:admin"], `--scope docs:admin is not a scope; scopes are ${SCOPES.join(", ")}.`],
    ["a role does not exist", ["member", "add", "ws", "--email", "a@example.com", "--role", "boss"], "--role boss is not a role; roles are owner, admin, member, guest."],
    ["a key has neither scopes nor permissions", ["key", "create", "ws", "--name", "n", "--created-by", "m"], "Give the key at least one --scope or --permission."],
    ["an expiry has no time zone", ["key", "create", "ws", "--name", "n", "--created-by", "m", "--scope", "docs:read", "--expires-at", "2030-01-01T10:00:00"], '--expires-at must be a date-time with a time zone, e.g. 2030-01-31T18:00:00Z, not "2030-01-01T10:00:00".'],
    ["a required option is missing", ["member", "add", "ws", "--role", "owner"], "Missing --email <email>. Usage: npm run admin -- member add <workspace-id> --email <email> --role <role> [--name <name>] [--team <team-id>]..."],
    ["an option is unknown", ["key", "list", "ws", "--colour"], "Unknown option '--colour'. See npm run admin -- key list --help."],
    ["the command is unknown", ["key", "rename", "ws"], `Unknown command "key rename". Commands: ${COMMANDS.map((command) => command.name).join(", ")}. See npm run admin -- --help.`],
  ];
  for (const [when, args, line] of cases) {
    test(`when ${when}, then it says so in one line, exits 2 and calls nothing`, async () => {
      const { code, stdout, stderr } = await cli(args);
      expect({ code, stdout, stderr }).toEqual({ code: 2, stdout: "", stderr: `${line}\n` });
      expect(received).toEqual([]);
    });
  }

  test("when ADMIN_TOKEN is set nowhere, then it says where to set it, after the arguments were checked", async () => {
    expect((await cli(["key", "create", "ws", "--name", "n", "--created-by", "m", "--permission", "docs=admin"], {})).stderr).toContain("docs levels are");
    const { code, stderr } = await cli(["key", "list", "ws"], {});
    expect(code).toBe(2);
    expect(stderr).toBe("ADMIN_TOKEN is not set: export it, or put ADMIN_TOKEN=… in a .env file here (npm start prints the token of its run).\n");
  });
});

describe("when the management API answers", () => {
  test("when a key is made, then the request carries the token and the expanded options, and the key is shown with a warning that it is shown once", async () => {
    answer = { status: 201, body: { id: "k1", key: "wsk_secret", prefix: "wsk_abc", name: "ci", scopes: ["docs:read"], team_ids: null, expires_at: null, created_by: "m1", created_at: "2026-01-01T00:00:00.000Z" } };
    const { code, stdout } = await cli(["key", "create", "w1", "--name", "ci", "--created-by", "m1", "--permission", "docs=read", "--rate-limit", "50"]);
    expect(code).toBe(0);
    expect(received).toEqual([
      { method: "POST", path: "/admin/v1/workspaces/w1/api-keys", authorization: `Bearer ${TOKEN}`, body: { name: "ci", created_by: "m1", permissions: { docs: "read" }, rate_limit_per_minute: 50 } },
    ]);
    expect(stdout).toContain("The key (shown only now, store it safely):\n  wsk_secret\n");
    expect(stdout).toMatch(/^id +k1$/m);
  });

  test("when --json is given, then the answer is printed as the API's JSON", async () => {
    answer = { status: 201, body: { id: "w1", name: "Acme", created_at: "2026-01-01T00:00:00.000Z" } };
    const { stdout } = await cli(["workspace", "create", "Acme", "--json"]);
    expect(JSON.parse(stdout)).toEqual(answer.body);
  });

  test("when --quiet is given, then only the id is printed, so a shell can keep it", async () => {
    answer = { status: 201, body: { id: "w1", name: "Acme", created_at: "2026-01-01T00:00:00.000Z" } };
    expect((await cli(["workspace", "create", "Acme", "-q"])).stdout).toBe("w1\n");
    answer = { status: 200, body: { data: [{ id: "k1" }, { id: "k2" }], total: 2, page: 1, per_page: 20 } };
    expect((await cli(["key", "list", "w1", "--quiet"])).stdout).toBe("k1\nk2\n");
  });

  test("when keys are listed, then they show as a table with where in the list it is", async () => {
    answer = { status: 200, body: { data: [{ id: "k1", prefix: "wsk_a", name: "ci", scopes: ["docs:read", "docs:create"], team_ids: null, expires_at: null, revoked_at: null, last_used_at: null }], total: 21, page: 2, per_page: 20 } };
    const { stdout } = await cli(["key", "list", "w1", "--page", "2"]);
    expect(received[0]!.path).toBe("/admin/v1/workspaces/w1/api-keys?page=2");
    expect(stdout.split("\n")[0]).toMatch(/^id +prefix +name +scopes +team_ids +expires_at +revoked_at +last_used_at$/);
    expect(stdout).toContain("docs:read, docs:create");
    expect(stdout).toContain("21 in all; page 2 of 2.");
  });

  test("when the API refuses a field, then the one line says what the field may hold, from the same lists the API uses", async () => {
    answer = { status: 422, body: { error: { code: "validation_error", message: "Invalid value for permissions.", details: { fields: ["permissions"], request_id: "r1" } } } };
    const { code, stderr } = await cli(["key", "create", "w1", "--name", "n", "--created-by", "m", "--scope", "docs:read"]);
    expect(code).toBe(1);
    expect(stderr.split("\n")).toEqual([
      "Invalid value for permissions. permission levels are lists: none, read, write, full; docs: none, read, write, full; calendar: none, read, write, full; workflows: none, read, run; agents: none, read, run. (422 validation_error)",
      "",
    ]);
  });

  test("when the API's error already says what is allowed per field, then that is shown instead", async () => {
    answer = { status: 422, body: { error: { code: "validation_error", message: "role must be one of owner, admin, member, guest.", details: { fields: [{ field: "role", reason: "not_allowed", allowed: ["owner", "admin", "member", "guest"] }] } } } };
    const { stderr } = await cli(["member", "update", "w1", "m1", "--role", "owner"]);
    expect(stderr).toBe("role must be one of owner, admin, member, guest. role: owner, admin, member, guest. (422 validation_error)\n");
  });

  test("when the token is refused or the workspace is unknown, then each is one line", async () => {
    answer = { status: 401, body: { error: { code: "invalid_token", message: "The admin token is not valid." } } };
    expect((await cli(["key", "list", "w1"])).stderr).toBe(
      `The management API at http://127.0.0.1:${server.port} refused ADMIN_TOKEN (401 invalid_token): use the token the gateway was started with (npm start prints it).\n`,
    );
    answer = { status: 404, body: { error: { code: "not_found", message: "No such workspace." } } };
    expect((await cli(["key", "revoke", "w1", "k1"])).stderr).toBe("No such workspace. (404 not_found)\n");
  });

  test("when nothing listens at ADMIN_URL, then it says so in one line", async () => {
    const { code, stderr } = await cli(["key", "list", "w1"], { ADMIN_URL: "http://127.0.0.1:1", ADMIN_TOKEN: TOKEN });
    expect(code).toBe(1);
    expect(stderr).toBe("Cannot reach the management API at http://127.0.0.1:1: is the gateway running (npm start)? Set ADMIN_URL if it listens elsewhere.\n");
  });
});

describe("the .env file", () => {
  const dir = mkdtempSync(join(tmpdir(), "wsapi-env-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("when it sets ADMIN_URL and ADMIN_TOKEN, then they are used unless the environment sets them", () => {
    const file = join(dir, ".env");
    writeFileSync(file, `# the CLI's settings\nexport ADMIN_URL=http://localhost:9081\nADMIN_TOKEN="from the file" # quoted\nEMPTY=\n`);
    expect(readEnvFile(file)).toEqual({ ADMIN_URL: "http://localhost:9081", ADMIN_TOKEN: "from the file", EMPTY: "" });
    expect(environmentWithEnvFile({ ADMIN_TOKEN: "from the shell" }, file)).toMatchObject({ ADMIN_URL: "http://localhost:9081", ADMIN_TOKEN: "from the shell" });
    expect(environmentWithEnvFile({}, join(dir, "missing.env"))).toEqual({});
  });
});

import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../../scripts/system";
import { sharedSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";

const CLI = join(REPO_ROOT, "gateway/src/cli/admin.ts");
const BUN = join(REPO_ROOT, "node_modules/.bin/bun");
const folder = mkdtempSync(join(tmpdir(), "wsapi-cli-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The CLI as a separate process; Bun's own .env loading is off, so only the CLI's reading of .env counts. */
function cli(args: string[], env: Record<string, string>, cwd = REPO_ROOT) {
  const result = spawnSync(BUN, ["--no-env-file", CLI, ...args], { cwd, encoding: "utf8", env: { PATH: process.env.PATH ?? "", ...env }, timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const as = (system: TestSystem) => ({ ADMIN_URL: system.adminUrl, ADMIN_TOKEN: system.adminToken });

describe("the admin CLI against the real management API", () => {
  test("when ADMIN_URL and ADMIN_TOKEN are only in a .env file of the current folder, then the CLI uses them", async () => {
    const system = await sharedSystem();
    writeFileSync(join(folder, ".env"), `ADMIN_URL=${system.adminUrl}\nADMIN_TOKEN="${system.adminToken}"\n`);
    const made = cli(["workspace", "create", "From a .env file", "--json"], {}, folder);
    expect(made.stderr).toBe("");
    expect(JSON.parse(made.stdout).name).toBe("From a .env file");
  });

  test("when a member's email is taken, then the API's refusal is one line with its status and code", async () => {
    const system = await sharedSystem();
    const tenant = await seedTenant(system);
    const args = ["member", "add", tenant.workspaceId, "--email", "twice@example.com", "--role", "member"];
    expect(cli(args, as(system)).code).toBe(0);
    const again = cli(args, as(system));
    expect(again.code).toBe(1);
    expect(again.stdout).toBe("");
    expect(again.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(again.stderr).toEndWith("(422 validation_error)\n");
    expect(again.stderr).toContain("email");
  });

  test("when a workspace does not exist, then it is one line with 404", async () => {
    const system = await sharedSystem();
    const result = cli(["key", "list", "00000000-0000-7000-8000-000000000000"], as(system));
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).toEndWith("(404 not_found)\n");
  });

  test("when the token is wrong, then it says the token was refused and where the right one comes from", async () => {
    const system = await sharedSystem();
    const result = cli(["key", "list", "00000000-0000-7000-8000-000000000000"], { ADMIN_URL: system.adminUrl, ADMIN_TOKEN: "not-the-right-token" });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`The management API at ${system.adminUrl} refused ADMIN_TOKEN (401 invalid_token): use the token the gateway was started with (npm start prints it).\n`);
  });

  test("when a permission level does not exist, then it names the valid levels and the API is not called", async () => {
    const system = await sharedSystem();
    const tenant = await seedTenant(system);
    const result = cli(["key", "create", tenant.workspaceId, "--name", "n", "--created-by", tenant.ownerId, "--permission", "docs=admin"], as(system));
    expect(result).toEqual({ code: 2, stdout: "", stderr: "--permission docs=admin: docs levels are none, read, write, full.\n" });
    expect((await tenant.admin.listKeys(tenant.workspaceId)).total).toBe(0);
  });

  test("when a key is made and listed with --quiet, then the ids printed are the API's", async () => {
    const system = await sharedSystem();
    const tenant = await seedTenant(system);
    const made = cli(["key", "create", tenant.workspaceId, "--name", "quiet", "--created-by", tenant.ownerId, "--scope", "docs:read", "--quiet"], as(system));
    expect(made.code).toBe(0);
    const listed = cli(["key", "list", tenant.workspaceId, "-q"], as(system));
    expect(listed.stdout).toBe(made.stdout);
    expect((await tenant.admin.listKeys(tenant.workspaceId)).data.map((key) => key.id)).toEqual([made.stdout.trim()]);
  });
});

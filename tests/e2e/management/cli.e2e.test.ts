import { beforeAll, describe, expect, test } from "bun:test";
import { apiClient } from "../../harness/http";
import { sharedSystem, type TestSystem } from "../../harness/system";

let system: TestSystem;
beforeAll(async () => {
  system = await sharedSystem();
});

/** Runs the operator CLI against the shared system; its JSON answer, or its exit code and stderr when it fails. */
async function cli(...args: string[]): Promise<{ code: number; json: any; stderr: string }> {
  const child = Bun.spawn([`${process.cwd()}/node_modules/.bin/bun`, "gateway/src/cli/admin.ts", ...args, "--json"], {
    env: { ...process.env, ADMIN_URL: system.adminUrl, ADMIN_TOKEN: system.adminToken },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, json: code === 0 && out ? JSON.parse(out) : undefined, stderr };
}

async function ok(...args: string[]): Promise<any> {
  const result = await cli(...args);
  expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: "" });
  return result.json;
}

describe("the management CLI", () => {
  test("when an operator works through a workspace with the CLI, then every new command does what its API operation does", async () => {
    const name = `cli ${crypto.randomUUID()}`;
    const workspace = await ok("workspace", "create", name);
    expect((await ok("workspace", "list", "--name", name)).data).toEqual([workspace]);
    expect(await ok("workspace", "get", workspace.id)).toEqual(workspace);

    const team = await ok("team", "create", workspace.id, "Platform");
    expect((await ok("team", "list", workspace.id)).data).toEqual([team]);
    const owner = await ok("member", "add", workspace.id, "--email", "owner@example.com", "--role", "owner", "--team", team.id);
    expect((await ok("member", "list", workspace.id)).data.map((member: { id: string }) => member.id)).toEqual([owner.id]);
    expect(await ok("member", "get", workspace.id, owner.id)).toMatchObject({ id: owner.id, role: "owner", team_ids: [team.id] });
    expect((await ok("member", "update", workspace.id, owner.id, "--name", "Olive Owner")).name).toBe("Olive Owner");

    const key = await ok("key", "create", workspace.id, "--name", "cli key", "--created-by", owner.id, "--permission", "docs=read");
    expect(await ok("key", "get", workspace.id, key.id)).toMatchObject({ id: key.id, scopes: ["docs:read"], effective_scopes: ["docs:read"] });
    const updated = await ok("key", "update", workspace.id, key.id, "--name", "cli key (renamed)", "--rate-limit", "50", "--expires-at", "2099-01-01T00:00:00Z");
    expect(updated).toMatchObject({ name: "cli key (renamed)", rate_limit_per_minute: 50, expires_at: "2099-01-01T00:00:00.000Z" });
    expect(await ok("key", "update", workspace.id, key.id, "--rate-limit", "default", "--expires-at", "never")).toMatchObject({ rate_limit_per_minute: null, expires_at: null });
    const rotated = await ok("key", "rotate", workspace.id, key.id, "--grace-seconds", "600");
    expect(rotated.previous_prefix).toBe(key.prefix);
    for (const secret of [key.key, rotated.key]) expect((await apiClient(system.baseUrl, secret)("GET", "/v1/new-page")).status).toBe(200);

    const log = await ok("audit-log", "list", workspace.id, "--per-page", "3");
    expect(log.data.map((entry: { action: string }) => entry.action)).toEqual(["api_key.rotate", "api_key.update", "api_key.update"]);

    expect(await ok("workspace", "delete", workspace.id)).toEqual({ id: workspace.id, deleted: true });
    expect((await apiClient(system.baseUrl, rotated.key)("GET", "/v1/new-page")).status).toBe(401);
    const gone = await cli("workspace", "get", workspace.id);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/404|not_found|No such workspace/);
  });
});

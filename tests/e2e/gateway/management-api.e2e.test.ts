import { beforeAll, describe, expect, test } from "bun:test";
import { expectError, expectErrorNaming } from "../../harness/assertions";
import { apiClient } from "../../harness/http";
import { sharedSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";

let system: TestSystem;
let tenant: Tenant;
let admin: ReturnType<typeof apiClient>;
beforeAll(async () => {
  system = await sharedSystem();
  tenant = await seedTenant(system);
  admin = apiClient(system.adminUrl, system.adminToken);
});

const ws = () => `/admin/v1/workspaces/${tenant.workspaceId}`;

function expectFields(response: { status: number; body: any }, fields: string[]) {
  expectErrorNaming(response, 422, "validation_error", fields);
}

describe("the management API", () => {
  test("when no admin token or a wrong one is sent, then it is 401", async () => {
    expect((await apiClient(system.adminUrl)("POST", "/admin/v1/workspaces", { name: "x" })).status).toBe(401);
    expect((await apiClient(system.adminUrl, "wrong-token-wrong-token")("POST", "/admin/v1/workspaces", { name: "x" })).status).toBe(401);
  });

  test("when a request without the admin token has a body that breaks the rules, or none that parses, then it is 401 all the same: nothing of it is read first", async () => {
    for (const body of [{}, { name: 7 }, "{not json"]) {
      const response = await apiClient(system.adminUrl)("POST", "/admin/v1/workspaces", body);
      expect({ status: response.status, code: response.body.error.code }).toEqual({ status: 401, code: "missing_token" });
      expect(response.body.error.message).toContain("admin token");
      expect(response.body.error.details.request_id).toBe(response.headers.get("x-request-id"));
    }
    const basic = await apiClient(system.adminUrl)("GET", "/admin/v1/workspaces", undefined, { authorization: "Basic dXNlcjpwYXNz" });
    expect({ status: basic.status, code: basic.body.error.code }).toEqual({ status: 401, code: "invalid_token" });
    expect(basic.body.error.message).toContain("admin token");
    const unknownPath = await apiClient(system.adminUrl, "wrong-token-wrong-token")("GET", "/admin/v1/nothing");
    expect(unknownPath.status).toBe(401);
  });

  test("when a workspace is created, then it answers 201 with id, name and created_at", async () => {
    const response = await admin("POST", "/admin/v1/workspaces", { name: "Acme" });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(["created_at", "id", "name"]);
    expect(response.body.created_at).toMatch(/Z$/);
  });

  test("when bodies are invalid, then it is 422 naming the fields", async () => {
    expectFields(await admin("POST", "/admin/v1/workspaces", { name: "" }), ["name"]);
    const missing = await admin("POST", "/admin/v1/workspaces", {});
    expectFields(missing, ["name"]);
    expect(missing.body.error.details.errors).toEqual([{ field: "name", rule: "required", message: "name is required" }]);
    expectFields(await admin("POST", `${ws()}/teams`, { name: 7 }), ["name"]);
    expectFields(await admin("POST", `${ws()}/members`, { email: "not-an-email", role: "king" }), ["email", "role"]);
    expectFields(await admin("POST", `${ws()}/api-keys`, { name: "k", created_by: tenant.ownerId, scopes: ["docs:fly"] }), ["scopes"]);
    expectFields(await admin("POST", `${ws()}/api-keys`, { name: "k", created_by: tenant.ownerId }), ["scopes", "permissions"]);
    expectFields(await admin("POST", `${ws()}/api-keys`, { name: "k", created_by: tenant.ownerId, permissions: { docs: "root" } }), ["permissions"]);
    expectFields(await admin("POST", `${ws()}/api-keys`, { name: "k", created_by: "00000000-0000-7000-8000-000000000000", scopes: ["docs:read"] }), ["created_by"]);
    expectFields(await admin("POST", `${ws()}/api-keys`, { name: "k", created_by: tenant.ownerId, scopes: ["docs:read"], expires_at: "2001-01-01T00:00:00Z" }), ["expires_at"]);
    expectFields(await admin("POST", `${ws()}/api-keys`, { name: "k", created_by: tenant.ownerId, scopes: ["docs:read"], rate_limit_per_minute: 0 }), ["rate_limit_per_minute"]);
    expectFields(await admin("PATCH", `${ws()}/members/${tenant.ownerId}`, {}), ["role", "active", "team_ids"]);
  });

  test("when a body is over 1 MiB, declared or streamed, then it is 413 payload_too_large and nothing is made", async () => {
    const name = `big-${crypto.randomUUID()}`;
    const body = JSON.stringify({ name, pad: "y".repeat(1024 * 1024) });
    const declared = await fetch(`${system.adminUrl}/admin/v1/workspaces`, {
      method: "POST",
      headers: { authorization: `Bearer ${system.adminToken}`, "content-type": "application/json" },
      body,
    });
    expect(declared.status).toBe(413);
    expect((await declared.json()).error.code).toBe("payload_too_large");
    const bytes = new TextEncoder().encode(body);
    const streamed = await fetch(`${system.adminUrl}/admin/v1/workspaces`, {
      method: "POST",
      headers: { authorization: `Bearer ${system.adminToken}`, "content-type": "application/json" },
      body: new ReadableStream({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 65536) controller.enqueue(bytes.subarray(at, at + 65536));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    const listed = await admin("GET", `/admin/v1/workspaces?name=${name}`);
    expect(listed.body.total).toBe(0);
    // Just under the limit is read and parsed.
    const under = await admin("POST", "/admin/v1/workspaces", { name, pad: "y".repeat(1024 * 1024 - 100) });
    expect(under.status).toBe(201);
  });

  test("when the JSON is malformed, then it is 400 bad_request", async () => {
    expectError(await admin("POST", "/admin/v1/workspaces", "{not json"), 400, "bad_request");
  });

  test("when a key targets a team its creator is not in, then it is refused; owners may target any team", async () => {
    const team = await tenant.team();
    const member = await tenant.member("member");
    expectFields(await admin("POST", `${ws()}/api-keys`, { name: "k", created_by: member, scopes: ["docs:read"], team_ids: [team] }), ["team_ids"]);
    const byOwner = await admin("POST", `${ws()}/api-keys`, { name: "k", created_by: tenant.ownerId, scopes: ["docs:read"], team_ids: [team] });
    expect(byOwner.status).toBe(201);
    expect(byOwner.body.team_ids).toEqual([team]);
  });

  test("when a key is created, then the full key is returned once and never listed", async () => {
    const created = await admin("POST", `${ws()}/api-keys`, { name: "ci deploy (prod)", created_by: tenant.ownerId, scopes: ["docs:read"] });
    expect(created.status).toBe(201);
    expect(created.body.key).toStartWith("wsk_");
    expect(created.body.key.startsWith(created.body.prefix)).toBe(true);
    for (const field of ["id", "key", "prefix", "name", "scopes", "team_ids", "expires_at", "created_by", "created_at"]) expect(created.body).toHaveProperty(field);
    const listed = await admin("GET", `${ws()}/api-keys`);
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(created.body.key);
    expect(listed.body.data.find((key: any) => key.id === created.body.id).prefix).toBe(created.body.prefix);
  });

  test("when a key is revoked, then it answers 204, and an unknown or malformed key id is 404", async () => {
    const { id } = await tenant.keyWithId();
    expect((await admin("DELETE", `${ws()}/api-keys/${id}`)).status).toBe(204);
    expect((await admin("DELETE", `${ws()}/api-keys/00000000-0000-7000-8000-000000000000`)).status).toBe(404);
    expect((await admin("DELETE", `${ws()}/api-keys/nope`)).status).toBe(404);
    expect((await admin("GET", "/admin/v1/workspaces/nope/api-keys")).status).toBe(404);
  });

  test("when the management CLI runs, then it performs the same operations", async () => {
    const run = async (...args: string[]) => {
      const child = Bun.spawn([`${process.cwd()}/node_modules/.bin/bun`, "gateway/src/cli/admin.ts", ...args, "--json"], {
        env: { ...process.env, ADMIN_URL: system.adminUrl, ADMIN_TOKEN: system.adminToken },
        stdout: "pipe",
        stderr: "pipe",
      });
      const out = await new Response(child.stdout).text();
      expect(await child.exited).toBe(0);
      return JSON.parse(out);
    };
    const workspace = await run("workspace", "create", "CLI workspace");
    const member = await run("member", "add", workspace.id, "--email", "cli@example.com", "--role", "admin");
    const key = await run("key", "create", workspace.id, "--name", "cli key", "--created-by", member.id, "--permission", "docs=read");
    expect(key.scopes).toEqual(["docs:read"]);
    expect((await apiClient(system.baseUrl, key.key)("GET", "/v1/new-page")).status).toBe(200);
    await run("key", "revoke", workspace.id, key.id);
    expect((await apiClient(system.baseUrl, key.key)("GET", "/v1/new-page")).status).toBe(401);
  });
});

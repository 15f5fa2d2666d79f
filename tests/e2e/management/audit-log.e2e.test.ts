import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { uuidv7 } from "@ws/shared";
import { adminActor } from "../../../gateway/src/admin";
import { expectError } from "../../harness/assertions";
import { managementClient } from "../../harness/http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";

// A system of its own, logging at info, so the audit's log lines can be read.
let system: TestSystem;
let tenant: Tenant;
let admin: ReturnType<typeof managementClient>;
const lines: string[] = [];
beforeAll(async () => {
  system = await startSystem({ env: { LOG_LEVEL: "info" }, output: (name, line) => name.startsWith("gateway") && lines.push(line) });
  tenant = await seedTenant(system);
  admin = managementClient(system.adminUrl, system.adminToken);
});
afterAll(async () => {
  await system?.stop();
});

const ws = () => `/admin/v1/workspaces/${tenant.workspaceId}`;

/** The epoch every replica compares its cached keys against; read from the database when the system runs on a real one. */
async function credentialEpoch(): Promise<number | undefined> {
  if (!system.databaseUrl) return undefined;
  const sql = postgres(system.databaseUrl, { max: 1 });
  try {
    const [row] = await sql<{ auth_epoch: string }[]>`select auth_epoch::text from workspaces where id = ${tenant.workspaceId}`;
    return Number(row!.auth_epoch);
  } finally {
    await sql.end();
  }
}

function parseLine(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

describe("the audit log", () => {
  test("when a workspace is set up, then its log holds each change, newest first, with who and in which request", async () => {
    const log = await admin("GET", `${ws()}/audit-log`);
    expect(log.status).toBe(200);
    expect(log.body.data.map((entry: { action: string }) => entry.action)).toEqual(["member.add", "workspace.create"]);
    const [added, created] = log.body.data;
    expect(created).toMatchObject({ workspace_id: tenant.workspaceId, resource_type: "workspace", resource_id: tenant.workspaceId, before: null });
    expect(created.after.id).toBe(tenant.workspaceId);
    expect(added).toMatchObject({ resource_type: "member", resource_id: tenant.ownerId, before: null, actor: adminActor(system.adminToken) });
    expect(log.text).not.toContain(system.adminToken);
  });

  test("when a member's role changes, then the entry holds the member before and after and the caller's request id", async () => {
    const member = await tenant.member("member");
    const requestId = `audit-${uuidv7()}`;
    const changed = await admin("PATCH", `${ws()}/members/${member}`, { role: "guest" }, { "x-request-id": requestId });
    expect(changed.headers.get("x-request-id")).toBe(requestId);
    const [entry] = (await admin("GET", `${ws()}/audit-log?per_page=1`)).body.data;
    expect(entry).toMatchObject({ action: "member.update", resource_id: member, request_id: requestId, before: { role: "member" }, after: { role: "guest" } });
    expect(new Date(entry.created_at).getTime()).toBeWithin(Date.now() - 60_000, Date.now() + 1000);
  });

  test("when a key is revoked by six calls at once, then all answer 204, one entry is written and the workspace's credential epoch moves once", async () => {
    const created = await admin("POST", `${ws()}/api-keys`, { name: "raced", created_by: tenant.ownerId, scopes: ["docs:read"] });
    const epoch = await credentialEpoch();
    const answers = await Promise.all(Array.from({ length: 6 }, () => admin("DELETE", `${ws()}/api-keys/${created.body.id}`)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(204));
    const log = await admin("GET", `${ws()}/audit-log?per_page=100`);
    const entries = log.body.data.filter((entry: { resource_id: string }) => entry.resource_id === created.body.id);
    expect(entries.map((entry: { action: string }) => entry.action)).toEqual(["api_key.revoke", "api_key.create"]);
    if (epoch !== undefined) expect(await credentialEpoch()).toBe(epoch + 1);
  });

  test("when a key's name and limit are changed by two calls at once, then both changes stay, and the newer entry's before is the older one's after", async () => {
    // Five keys, each changed twice at once: which call waits for the other varies from key to key.
    for (let round = 0; round < 5; round++) {
      const created = await admin("POST", `${ws()}/api-keys`, { name: "first", created_by: tenant.ownerId, scopes: ["docs:read"] });
      await Promise.all([
        admin("PATCH", `${ws()}/api-keys/${created.body.id}`, { name: "second" }),
        admin("PATCH", `${ws()}/api-keys/${created.body.id}`, { rate_limit_per_minute: 77 }),
      ]);
      expect((await admin("GET", `${ws()}/api-keys/${created.body.id}`)).body).toMatchObject({ name: "second", rate_limit_per_minute: 77 });
      const log = await admin("GET", `${ws()}/audit-log?per_page=100`);
      const [last, first] = log.body.data.filter((entry: { resource_id: string; action: string }) => entry.resource_id === created.body.id && entry.action === "api_key.update");
      expect(first.before).toMatchObject({ name: "first", rate_limit_per_minute: null });
      expect(last.before).toEqual(first.after);
    }
  });

  test("when a key is created, rotated, updated and revoked (twice), then each change is one entry and no entry holds a secret", async () => {
    const created = await admin("POST", `${ws()}/api-keys`, { name: "audited", created_by: tenant.ownerId, scopes: ["docs:read"] });
    const rotated = await admin("POST", `${ws()}/api-keys/${created.body.id}/rotate`, { grace_seconds: 60 });
    await admin("PATCH", `${ws()}/api-keys/${created.body.id}`, { name: "audited (renamed)" });
    await admin("DELETE", `${ws()}/api-keys/${created.body.id}`);
    // Revoking again answers as before and changes nothing, so it is no entry of its own.
    expect((await admin("DELETE", `${ws()}/api-keys/${created.body.id}`)).status).toBe(204);
    const log = await admin("GET", `${ws()}/audit-log?per_page=4`);
    expect(log.body.data.map((entry: { action: string }) => entry.action)).toEqual(["api_key.revoke", "api_key.update", "api_key.rotate", "api_key.create"]);
    for (const entry of log.body.data) expect(entry.resource_id).toBe(created.body.id);
    const [revoke, update, rotate] = log.body.data;
    expect(rotate.before.prefix).toBe(created.body.prefix);
    expect(rotate.after).toMatchObject({ prefix: rotated.body.prefix, previous_prefix: created.body.prefix, previous_key_expires_at: rotated.body.previous_key_expires_at });
    expect([update.before.name, update.after.name]).toEqual(["audited", "audited (renamed)"]);
    expect([revoke.before.revoked_at, typeof revoke.after.revoked_at]).toEqual([null, "string"]);
    for (const secret of [created.body.key, rotated.body.key]) expect(log.text).not.toContain(secret.slice(12));
  });

  test("when a change commits, then it is also written as one log line naming the action, resource, request and actor", async () => {
    const requestId = `audit-line-${uuidv7()}`;
    const team = await admin("POST", `${ws()}/teams`, { name: "Logged" }, { "x-request-id": requestId });
    const deadline = Date.now() + 5000;
    let line: Record<string, unknown> | undefined;
    while (!line && Date.now() < deadline) {
      line = lines.map(parseLine).find((entry) => entry?.request_id === requestId && entry.message === "management change");
      if (!line) await Bun.sleep(50);
    }
    expect(line).toMatchObject({ action: "team.create", workspace_id: tenant.workspaceId, resource_type: "team", resource_id: team.body.id, actor: adminActor(system.adminToken) });
    expect(JSON.stringify(line)).not.toContain(system.adminToken);
  });

  test("when a change is refused, then nothing is recorded", async () => {
    const before = (await admin("GET", `${ws()}/audit-log`)).body.total;
    expectError(await admin("POST", `${ws()}/api-keys`, { name: "k", created_by: uuidv7(), scopes: ["docs:read"] }), 422, "validation_error");
    expectError(await admin("PATCH", `${ws()}/members/${uuidv7()}`, { role: "guest" }), 404, "not_found");
    expect((await admin("GET", `${ws()}/audit-log`)).body.total).toBe(before);
  });

  test("when the log is paged, then pages follow each other without gaps; a workspace that never existed is 404", async () => {
    const all = (await admin("GET", `${ws()}/audit-log?per_page=100`)).body;
    const pages = [];
    for (let page = 1; page <= Math.ceil(all.total / 3); page++) pages.push(...(await admin("GET", `${ws()}/audit-log?per_page=3&page=${page}`)).body.data);
    expect(pages.map((entry: { id: string }) => entry.id)).toEqual(all.data.map((entry: { id: string }) => entry.id));
    expectError(await admin("GET", `/admin/v1/workspaces/${uuidv7()}/audit-log`), 404, "not_found");
    expectError(await admin("GET", "/admin/v1/workspaces/nope/audit-log"), 404, "not_found");
  });
});

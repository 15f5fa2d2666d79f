import { adminClient, type AdminClient, type NewApiKey } from "../../gateway/src/definition";
import { seedWorkspace } from "../../scripts/system";
import { apiClient, type Call } from "./http";
import { sharedSystem, type TestSystem } from "./system";

let counter = 0;

export interface Tenant {
  workspaceId: string;
  ownerId: string;
  admin: AdminClient;
  /** A new key by the owner (or `created_by`); all permissions unless scopes/permissions are given. */
  key(options?: Record<string, unknown>): Promise<string>;
  keyWithId(options?: Record<string, unknown>): Promise<{ id: string; key: string }>;
  team(name?: string): Promise<string>;
  member(role: "owner" | "admin" | "member" | "guest", teamIds?: string[]): Promise<string>;
}

/**
 * A fresh workspace with an owner, so a test never depends on another test's
 * data. Reads only the management URL and token, so a system started any way
 * can be seeded.
 */
export async function seedTenant(system: Pick<TestSystem, "adminUrl" | "adminToken">): Promise<Tenant> {
  const admin = adminClient(system.adminUrl, system.adminToken);
  const unique = `${process.pid}-${Date.now()}-${++counter}`;
  const workspace = await seedWorkspace(admin, { name: `Test workspace ${unique}`, ownerEmail: `owner-${unique}@example.com` });
  const keyWithId = async (options: Record<string, unknown> = {}) => {
    const created = await workspace.keyWithId({ name: `test key ${++counter}`, ...(options as Partial<NewApiKey>) });
    return { id: created.id, key: created.key };
  };
  return {
    workspaceId: workspace.workspaceId,
    ownerId: workspace.ownerId,
    admin,
    keyWithId,
    key: async (options) => (await keyWithId(options)).key,
    team: async (name) => (await admin.createTeam(workspace.workspaceId, name ?? `team ${++counter}`)).id,
    member: async (role, teamIds) =>
      (await admin.addMember(workspace.workspaceId, { email: `${role}-${unique}-${++counter}@example.com`, role, team_ids: teamIds })).id,
  };
}

/** A fresh workspace (on the shared system unless one is given) and a client holding its full-access key. */
export async function seedTenantWithClient(system?: TestSystem): Promise<{ system: TestSystem; tenant: Tenant; call: Call; baseUrl: string }> {
  const on = system ?? (await sharedSystem());
  const tenant = await seedTenant(on);
  return { system: on, tenant, call: apiClient(on.baseUrl, await tenant.key()), baseUrl: on.baseUrl };
}

import { PERMISSION_LEVELS } from "@ws/shared";
import type { AdminClient, CreatedApiKey, NewApiKey } from "../../gateway/src/definition";

/** The highest level of every resource: a key with these may do everything its creator's role allows. */
export const ALL_PERMISSIONS: Record<string, string> = Object.fromEntries(
  Object.entries(PERMISSION_LEVELS).map(([resource, levels]) => [resource, Object.keys(levels).at(-1)!]),
);

let counter = 0;

export interface SeededWorkspace {
  workspaceId: string;
  ownerId: string;
  admin: AdminClient;
  /** A new key made by the owner (or `created_by`): every permission unless scopes or permissions are given. */
  keyWithId(options?: Partial<NewApiKey>): Promise<CreatedApiKey>;
  key(options?: Partial<NewApiKey>): Promise<string>;
}

/** A workspace already in the database, seen through its owner. */
export function seededWorkspace(admin: AdminClient, workspaceId: string, ownerId: string): SeededWorkspace {
  const keyWithId = (options: Partial<NewApiKey> = {}) => {
    const hasScopes = "scopes" in options || "permissions" in options;
    return admin.createKey(workspaceId, {
      name: `key ${++counter}`,
      created_by: ownerId,
      ...(hasScopes ? {} : { permissions: ALL_PERMISSIONS }),
      ...options,
    });
  };
  return { workspaceId, ownerId, admin, keyWithId, key: async (options) => (await keyWithId(options)).key };
}

/** Makes a workspace and its owner through the management API. */
export async function seedWorkspace(admin: AdminClient, seed: { name: string; ownerEmail: string; ownerName?: string }): Promise<SeededWorkspace> {
  const workspace = await admin.createWorkspace(seed.name);
  const owner = await admin.addMember(workspace.id, { email: seed.ownerEmail, name: seed.ownerName, role: "owner" });
  return seededWorkspace(admin, workspace.id, owner.id);
}

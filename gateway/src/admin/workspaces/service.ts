import { ApiError, isUuid, readList, resolvePaging, uuidv7 } from "@ws/shared";
import { revokeWorkspaceKeys } from "../../identity/api-keys";
import { countWorkspaces, deleteWorkspace as deleteWorkspaceRow, findWorkspace, insertWorkspace, listWorkspaces, type WorkspaceRow } from "../../identity/workspaces";
import { applyChange, type AdminCaller, type AdminDeps } from "../admin-context";
import type { CreateWorkspaceBody, ListWorkspacesQuery, Workspace } from "./model";

export function presentWorkspace(row: WorkspaceRow): Workspace {
  return { id: row.id, name: row.name, created_at: row.created_at.toISOString() };
}

async function existingWorkspace(deps: AdminDeps, workspaceId: string): Promise<WorkspaceRow> {
  const row = isUuid(workspaceId) ? await findWorkspace(deps.sql, workspaceId) : undefined;
  if (!row) throw ApiError.notFound("No such workspace.");
  return row;
}

export async function createWorkspace(deps: AdminDeps, caller: AdminCaller, body: CreateWorkspaceBody): Promise<Workspace> {
  return applyChange(deps, caller, async ({ tx, audit }) => {
    const workspace = presentWorkspace(await insertWorkspace(tx, { id: uuidv7(), name: body.name.trim() }));
    await audit({ workspaceId: workspace.id, action: "workspace.create", resourceType: "workspace", resourceId: workspace.id, after: workspace });
    return workspace;
  });
}

export async function getWorkspace(deps: AdminDeps, workspaceId: string): Promise<Workspace> {
  return presentWorkspace(await existingWorkspace(deps, workspaceId));
}

export async function listAllWorkspaces(deps: AdminDeps, query: ListWorkspacesQuery) {
  const filter = { name: query.name };
  const paging = resolvePaging(query, "validation_error");
  // No stored name holds a NUL, and PostgreSQL refuses one in a parameter.
  if (filter.name?.includes("\u0000")) return { data: [], total: 0, page: paging.page, per_page: paging.perPage };
  const list = await readList(deps.sql, paging, {
    count: (tx) => countWorkspaces(tx, filter),
    rows: (tx, limit, offset) => listWorkspaces(tx, filter, { limit, offset }),
  });
  return { ...list, data: list.data.map(presentWorkspace) };
}

/**
 * In three steps, each safe to repeat, so a delete that fails half-way is
 * finished by sending it again: the keys are revoked (they stop working at
 * once at every replica), the services delete the workspace's data, then the
 * workspace goes with its teams, members and keys. A request that was already
 * past authentication when the delete began may still finish.
 */
export async function deleteWorkspace(deps: AdminDeps, caller: AdminCaller, workspaceId: string): Promise<void> {
  await existingWorkspace(deps, workspaceId);
  const revoked = await applyChange(deps, caller, ({ tx }) => revokeWorkspaceKeys(tx, workspaceId), { credentialsOf: workspaceId });
  const purged = await deps.serviceData.purgeWorkspace(workspaceId, caller.requestId);
  const deleted = await applyChange(deps, caller, async ({ tx, audit }) => {
    const row = await findWorkspace(tx, workspaceId);
    if (!row || !(await deleteWorkspaceRow(tx, workspaceId))) return false;
    await audit({
      workspaceId,
      action: "workspace.delete",
      resourceType: "workspace",
      resourceId: workspaceId,
      before: presentWorkspace(row),
      after: { keys_revoked: revoked, services: purged },
    });
    return true;
  });
  if (!deleted) throw ApiError.notFound("No such workspace.");
}

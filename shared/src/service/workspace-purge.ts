import { Elysia } from "elysia";
import { isUuid } from "../ids/uuid7";
import { requestPath } from "../http/request-path";
import { verifyWorkspacePurge, WORKSPACE_PURGE_HEADER, type VerificationKeys } from "../principal/internal-token";

export const WORKSPACE_PURGE_PATH = "/internal/workspaces/:ws";

/** How many rows of each kind a purge deleted, by table: `{ pages: 12 }`. */
export type PurgeCounts = Record<string, number>;

/** What every service says about data that is not reached through its operations. */
export interface ServiceInternals {
  /** Deletes everything the service holds for the workspace, in one transaction; a second call finds nothing. */
  purgeWorkspace(workspaceId: string): Promise<PurgeCounts>;
}

/**
 * `DELETE /internal/workspaces/:ws`: the gateway's order to delete a workspace's
 * data, when the workspace itself is deleted. Only an order the gateway signed
 * for exactly this workspace and path is obeyed.
 */
export function workspacePurgeRoute(keys: VerificationKeys, internals: ServiceInternals) {
  return new Elysia({ name: "workspace-purge" }).delete(WORKSPACE_PURGE_PATH, async ({ request, params }) => {
    verifyWorkspacePurge(request.headers.get(WORKSPACE_PURGE_HEADER), { method: request.method, path: requestPath(request), workspaceId: params.ws }, keys);
    // A malformed id names no workspace: nothing of it can be stored.
    const deleted = isUuid(params.ws) ? await internals.purgeWorkspace(params.ws) : {};
    return { workspace_id: params.ws, deleted };
  });
}

import type { OperationHandlers, OperationShape } from "@ws/shared";
import { CreateApiKeyBody, ListApiKeysQuery } from "./api-keys/model";
import { CreateMemberBody, UpdateMemberBody } from "./members/model";
import { CreateTeamBody } from "./teams/model";
import { CreateWorkspaceBody } from "./workspaces/model";

/** Every management path sits under this prefix. */
export const ADMIN_PREFIX = "/admin/v1";
const IN_WORKSPACE = "/workspaces/:ws";

/**
 * The one table of management operations, paths relative to ADMIN_PREFIX: the
 * management routes are mounted from it, each answered by the handler of its
 * operationId, and the command-line client builds its requests from it.
 */
export const ADMIN_OPERATIONS = {
  createWorkspace: { method: "POST", path: "/workspaces", body: CreateWorkspaceBody, success: { status: 201 } },
  createTeam: { method: "POST", path: `${IN_WORKSPACE}/teams`, body: CreateTeamBody, success: { status: 201 } },
  addMember: { method: "POST", path: `${IN_WORKSPACE}/members`, body: CreateMemberBody, success: { status: 201 } },
  updateMember: { method: "PATCH", path: `${IN_WORKSPACE}/members/:id`, body: UpdateMemberBody, success: { status: 200 } },
  createApiKey: { method: "POST", path: `${IN_WORKSPACE}/api-keys`, body: CreateApiKeyBody, success: { status: 201 } },
  listApiKeys: { method: "GET", path: `${IN_WORKSPACE}/api-keys`, query: ListApiKeysQuery, success: { status: 200 } },
  revokeApiKey: { method: "DELETE", path: `${IN_WORKSPACE}/api-keys/:id`, success: { status: 204 } },
} as const satisfies Record<string, OperationShape>;
export type AdminOperations = typeof ADMIN_OPERATIONS;
export type AdminOperationId = keyof AdminOperations;

/** A handler for each of the named management operations. */
export type AdminHandlers<Ids extends AdminOperationId> = OperationHandlers<Pick<AdminOperations, Ids>>;

import type { OperationHandlers, OperationRule, OperationShape, SuccessStatus } from "@ws/shared";
import type { TSchema } from "elysia";
import type { AdminCaller } from "./admin-context";
import { ApiKey, ApiKeyList, CreateApiKeyBody, CreatedApiKey, ListApiKeysQuery, RotateApiKeyBody, UpdateApiKeyBody } from "./api-keys/model";
import { AuditLog, AuditLogQuery } from "./audit-log/model";
import { CreateMemberBody, ListMembersQuery, Member, MemberList, UpdateMemberBody } from "./members/model";
import { CreateTeamBody, ListTeamsQuery, Team, TeamList } from "./teams/model";
import { CreateWorkspaceBody, ListWorkspacesQuery, Workspace, WorkspaceList } from "./workspaces/model";

/** Every management path sits under this prefix. */
export const ADMIN_PREFIX = "/admin/v1";
/** The management API's OpenAPI document: under the prefix, but served without the admin token. */
export const ADMIN_DOCUMENT_PATH = `${ADMIN_PREFIX}/openapi.json`;
const IN_WORKSPACE = "/workspaces/:ws";

export const ADMIN_TAGS = {
  Workspaces: "Workspaces: the tenants. Deleting one deletes everything in it, the services' data included.",
  Teams: "Teams of a workspace.",
  Members: "Members of a workspace and their roles; a key acts within its creator's current role.",
  "API keys": "API keys: created, listed, changed, rotated and revoked here; the secret is shown only when it is made.",
  "Audit log": "Every management change, with who made it and when.",
} as const;

/** One management operation as written in the table: enough to serve it, document it and call it. */
export interface AdminOperationSpec extends OperationShape {
  summary: string;
  description: string;
  tag: keyof typeof ADMIN_TAGS;
  success: { status: SuccessStatus; description: string; schema?: TSchema };
  /** Checks beyond the schemas, each with the code it answers. */
  rules?: readonly OperationRule[];
  /** The body may be left out (it reads as `{}`, which the operation accepts). */
  bodyOptional?: true;
}

/**
 * The one table of management operations, paths relative to ADMIN_PREFIX: the
 * management routes are mounted from it, each answered by the handler of its
 * operationId, its OpenAPI document is generated from those routes, and the
 * command-line client builds its requests from it.
 */
export const ADMIN_OPERATIONS = {
  listWorkspaces: {
    method: "GET", path: "/workspaces", tag: "Workspaces",
    summary: "List workspaces",
    description: "Every workspace, oldest first, in the list envelope; `name` filters by a case-insensitive substring.",
    query: ListWorkspacesQuery,
    success: { status: 200, description: "One result page of workspaces.", schema: WorkspaceList },
  },
  createWorkspace: {
    method: "POST", path: "/workspaces", tag: "Workspaces",
    summary: "Create a workspace",
    description: "Creates an empty workspace; add an owner next, then keys.",
    body: CreateWorkspaceBody,
    success: { status: 201, description: "The created workspace.", schema: Workspace },
  },
  getWorkspace: {
    method: "GET", path: IN_WORKSPACE, tag: "Workspaces",
    summary: "Get a workspace",
    description: "One workspace by its id.",
    success: { status: 200, description: "The workspace.", schema: Workspace },
  },
  deleteWorkspace: {
    method: "DELETE", path: IN_WORKSPACE, tag: "Workspaces",
    summary: "Delete a workspace",
    description:
      "Deletes the workspace and everything in it: its keys stop working at once at every gateway replica, then the services delete its pages, calendars and events, then its teams, members and keys go. Permanent. Its audit log stays readable, the deletion included.",
    success: { status: 204, description: "The workspace and all its data are deleted." },
    rules: [
      {
        code: "service_unavailable",
        when: "A service could not delete the workspace's data. The workspace's keys are already revoked and the workspace stays; send the delete again.",
      },
    ],
  },
  listTeams: {
    method: "GET", path: `${IN_WORKSPACE}/teams`, tag: "Teams",
    summary: "List teams",
    description: "The workspace's teams, oldest first, in the list envelope.",
    query: ListTeamsQuery,
    success: { status: 200, description: "One result page of teams.", schema: TeamList },
  },
  createTeam: {
    method: "POST", path: `${IN_WORKSPACE}/teams`, tag: "Teams",
    summary: "Create a team",
    description: "Creates a team in the workspace.",
    body: CreateTeamBody,
    success: { status: 201, description: "The created team.", schema: Team },
  },
  listMembers: {
    method: "GET", path: `${IN_WORKSPACE}/members`, tag: "Members",
    summary: "List members",
    description: "The workspace's members, oldest first, in the list envelope.",
    query: ListMembersQuery,
    success: { status: 200, description: "One result page of members.", schema: MemberList },
  },
  addMember: {
    method: "POST", path: `${IN_WORKSPACE}/members`, tag: "Members",
    summary: "Add a member",
    description: "Adds a member with a role, optionally in teams.",
    body: CreateMemberBody,
    success: { status: 201, description: "The added member.", schema: Member },
    rules: [
      { code: "validation_error", when: "A member with this email exists in the workspace (rule `unique`)." },
      { code: "validation_error", when: "`team_ids` names a team that is not in this workspace (rule `reference`)." },
    ],
  },
  getMember: {
    method: "GET", path: `${IN_WORKSPACE}/members/:id`, tag: "Members",
    summary: "Get a member",
    description: "One member by id.",
    success: { status: 200, description: "The member.", schema: Member },
  },
  updateMember: {
    method: "PATCH", path: `${IN_WORKSPACE}/members/:id`, tag: "Members",
    summary: "Update a member",
    description:
      "Changes the role, the active flag, the teams or the name. A change of role, activity or teams applies to the member's keys at every replica on their next request.",
    body: UpdateMemberBody,
    success: { status: 200, description: "The updated member.", schema: Member },
    rules: [
      { code: "validation_error", when: "The body names none of the fields (rule `at_least_one`)." },
      { code: "validation_error", when: "`team_ids` names a team that is not in this workspace (rule `reference`)." },
    ],
  },
  listApiKeys: {
    method: "GET", path: `${IN_WORKSPACE}/api-keys`, tag: "API keys",
    summary: "List API keys",
    description: "The workspace's keys, oldest first, revoked ones included, never their secrets.",
    query: ListApiKeysQuery,
    success: { status: 200, description: "One result page of keys.", schema: ApiKeyList },
  },
  createApiKey: {
    method: "POST", path: `${IN_WORKSPACE}/api-keys`, tag: "API keys",
    summary: "Create an API key",
    description:
      "Creates a key for a member of the workspace. The answer holds the full secret (`key`), the only time it is shown. Scopes beyond the creator's role may be granted; they work only while the role allows them (see `effective_scopes`).",
    body: CreateApiKeyBody,
    success: { status: 201, description: "The created key, with its secret.", schema: CreatedApiKey },
    rules: [
      { code: "validation_error", when: "Neither `scopes` nor `permissions` gives a scope (rule `at_least_one`)." },
      { code: "validation_error", when: "`created_by` is not an active member of the workspace (rule `reference`)." },
      { code: "validation_error", when: "`team_ids` names a team its creator does not belong to (rule `reference`)." },
      { code: "validation_error", when: "`expires_at` is not in the future (rule `future`)." },
    ],
  },
  getApiKey: {
    method: "GET", path: `${IN_WORKSPACE}/api-keys/:id`, tag: "API keys",
    summary: "Get an API key",
    description: "One key by id, without its secret, with its granted and effective scopes.",
    success: { status: 200, description: "The key.", schema: ApiKey },
  },
  updateApiKey: {
    method: "PATCH", path: `${IN_WORKSPACE}/api-keys/:id`, tag: "API keys",
    summary: "Update an API key",
    description:
      "Renames the key or changes its rate limit or expiry. At every replica the key's next request sees the change and is held to it: a limit lowered below what the key has used this minute answers its next request 429 at once.",
    body: UpdateApiKeyBody,
    success: { status: 200, description: "The updated key.", schema: ApiKey },
    rules: [
      { code: "validation_error", when: "The body names none of the fields (rule `at_least_one`)." },
      { code: "validation_error", when: "`expires_at` is not in the future (rule `future`)." },
    ],
  },
  rotateApiKey: {
    method: "POST", path: `${IN_WORKSPACE}/api-keys/:id/rotate`, tag: "API keys",
    summary: "Rotate an API key",
    description:
      "Gives the key a new secret, answered once in `key`. The old secret keeps working until `previous_key_expires_at` (at most 24 hours), then answers 401 at every replica. Rotating again ends an older secret still in its grace at once. Scopes, teams, limits and expiry stay. Without a body the old secret stops at once.",
    body: RotateApiKeyBody,
    bodyOptional: true,
    success: { status: 200, description: "The key with its new secret.", schema: CreatedApiKey },
    rules: [
      { code: "validation_error", when: "Both `grace_seconds` and `old_key_expires_at` are given (rule `one_only`)." },
      { code: "validation_error", when: "`old_key_expires_at` is in the past or more than 24 hours away (rule `range`)." },
      { code: "validation_error", when: "The key is revoked (rule `state`): create a new key instead." },
    ],
  },
  revokeApiKey: {
    method: "DELETE", path: `${IN_WORKSPACE}/api-keys/:id`, tag: "API keys",
    summary: "Revoke an API key",
    description: "Revokes the key, every secret of it, at once: its next request at any replica answers 401. Revoking twice is harmless.",
    success: { status: 204, description: "The key is revoked." },
  },
  getAuditLog: {
    method: "GET", path: `${IN_WORKSPACE}/audit-log`, tag: "Audit log",
    summary: "Read the audit log",
    description:
      "The workspace's management changes, newest first, in the list envelope: what was done to which resource, before and after, when, by which admin credential, in which request. Readable after the workspace is deleted.",
    query: AuditLogQuery,
    success: { status: 200, description: "One result page of audit entries.", schema: AuditLog },
  },
} as const satisfies Record<string, AdminOperationSpec>;
export type AdminOperations = typeof ADMIN_OPERATIONS;
export type AdminOperationId = keyof AdminOperations;

/** What every management handler is given besides its input. */
export interface AdminContext {
  caller: AdminCaller;
}

/** A handler for each of the named management operations. */
export type AdminHandlers<Ids extends AdminOperationId> = OperationHandlers<Pick<AdminOperations, Ids>, AdminContext>;

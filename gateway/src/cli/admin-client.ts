import { fillPath } from "@ws/shared";
import type { ApiKey as ApiKeyModel, CreatedApiKey as CreatedApiKeyModel } from "../admin/api-keys/model";
import type { AuditEntry as AuditEntryModel } from "../admin/audit-log/model";
import type { Member as MemberModel } from "../admin/members/model";
import { ADMIN_OPERATIONS, ADMIN_PREFIX, type AdminOperationId } from "../admin/operations";
import type { Team as TeamModel } from "../admin/teams/model";
import type { Workspace as WorkspaceModel } from "../admin/workspaces/model";

/** An answer of the management API that is not a success, with the error object's parts. */
export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly apiMessage: string,
    readonly details: Record<string, unknown>,
    readonly operation: string,
  ) {
    super(`${operation} answered ${status} ${code}: ${apiMessage}`);
    this.name = "AdminApiError";
  }

  /** The names of the fields the API refused, whichever form `details.fields` takes. */
  get fields(): string[] {
    const fields = this.details.fields;
    if (!Array.isArray(fields)) return [];
    return fields.map((field) => (typeof field === "string" ? field : String((field as { field?: unknown })?.field ?? ""))).filter(Boolean);
  }
}

/** The management API's own models, as this client receives them: one definition, in the admin folders. */
export type Workspace = typeof WorkspaceModel.static;
export type Team = typeof TeamModel.static;
export type Member = typeof MemberModel.static;
export type ApiKey = typeof ApiKeyModel.static;
export type CreatedApiKey = typeof CreatedApiKeyModel.static;
export type AuditEntry = typeof AuditEntryModel.static;
export interface List<T> {
  data: T[];
  total: number;
  page: number;
  per_page: number;
}

export interface NewMember {
  email: string;
  name?: string;
  role: string;
  team_ids?: string[];
}
export interface MemberChanges {
  role?: string;
  active?: boolean;
  team_ids?: string[];
  name?: string | null;
}
export interface KeyChanges {
  name?: string;
  rate_limit_per_minute?: number | null;
  expires_at?: string | null;
}
export interface Rotation {
  grace_seconds?: number;
  old_key_expires_at?: string;
}
type Paging = { page?: number; per_page?: number };
export interface NewApiKey {
  name: string;
  created_by: string;
  scopes?: string[];
  permissions?: Record<string, string>;
  team_ids?: string[] | null;
  expires_at?: string | null;
  rate_limit_per_minute?: number | null;
  streaming?: boolean;
}

function errorOf(status: number, text: string, operation: string): AdminApiError {
  try {
    const { error } = JSON.parse(text) as { error: { code: string; message: string; details?: Record<string, unknown> } };
    if (typeof error?.code === "string") return new AdminApiError(status, error.code, error.message, error.details ?? {}, operation);
  } catch {
    // not the error object: fall through
  }
  return new AdminApiError(status, "unexpected_response", text.slice(0, 200) || "(empty body)", {}, operation);
}

/**
 * A small client of the management API, used by the CLI, `npm start`'s demo
 * seed, the tests and the benchmark. One method per operation; methods and
 * paths come from the management operation table.
 */
export function adminClient(adminUrl: string, adminToken: string) {
  const base = adminUrl.replace(/\/$/, "");
  async function call<T>(operationId: AdminOperationId, params: Record<string, string>, body?: unknown, search = ""): Promise<T> {
    const { method } = ADMIN_OPERATIONS[operationId];
    const path = `${ADMIN_PREFIX}${fillPath(ADMIN_OPERATIONS[operationId].path, params)}`;
    const response = await fetch(`${base}${path}${search}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw errorOf(response.status, text, `${method} ${path}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
  const query = (params: Record<string, string | number | undefined>) => {
    const entries = Object.entries(params).filter((entry): entry is [string, string | number] => entry[1] !== undefined);
    return entries.length ? `?${new URLSearchParams(entries.map(([name, value]) => [name, String(value)]))}` : "";
  };
  return {
    url: base,
    call,
    listWorkspaces: (filter: Paging & { name?: string } = {}) => call<List<Workspace>>("listWorkspaces", {}, undefined, query(filter)),
    createWorkspace: (name: string) => call<Workspace>("createWorkspace", {}, { name }),
    getWorkspace: (ws: string) => call<Workspace>("getWorkspace", { ws }),
    deleteWorkspace: (ws: string) => call<void>("deleteWorkspace", { ws }),
    listTeams: (ws: string, paging: Paging = {}) => call<List<Team>>("listTeams", { ws }, undefined, query(paging)),
    createTeam: (ws: string, name: string) => call<Team>("createTeam", { ws }, { name }),
    listMembers: (ws: string, paging: Paging = {}) => call<List<Member>>("listMembers", { ws }, undefined, query(paging)),
    addMember: (ws: string, member: NewMember) => call<Member>("addMember", { ws }, member),
    getMember: (ws: string, id: string) => call<Member>("getMember", { ws, id }),
    updateMember: (ws: string, id: string, changes: MemberChanges) => call<Member>("updateMember", { ws, id }, changes),
    createKey: (ws: string, key: NewApiKey) => call<CreatedApiKey>("createApiKey", { ws }, key),
    listKeys: (ws: string, paging: Paging = {}) => call<List<ApiKey>>("listApiKeys", { ws }, undefined, query(paging)),
    getKey: (ws: string, id: string) => call<ApiKey>("getApiKey", { ws, id }),
    updateKey: (ws: string, id: string, changes: KeyChanges) => call<ApiKey>("updateApiKey", { ws, id }, changes),
    rotateKey: (ws: string, id: string, rotation: Rotation = {}) => call<CreatedApiKey>("rotateApiKey", { ws, id }, rotation),
    revokeKey: (ws: string, id: string) => call<void>("revokeApiKey", { ws, id }),
    auditLog: (ws: string, paging: Paging = {}) => call<List<AuditEntry>>("getAuditLog", { ws }, undefined, query(paging)),
  };
}
export type AdminClient = ReturnType<typeof adminClient>;

import { fillPath } from "@ws/shared";
import type { ApiKey } from "../admin/api-keys/model";
import { ADMIN_OPERATIONS, ADMIN_PREFIX, type AdminOperationId } from "../admin/operations";

type Query = Record<string, string | number | undefined>;
type List<T> = { data: T[]; total: number; page: number; per_page: number };
type Paging = { page?: number; per_page?: number };

/** A small client of the management API, used by the CLI, the demo seed and the tests; routes come from the management table. */
export function adminClient(adminUrl: string, adminToken: string) {
  async function call<T>(operationId: AdminOperationId, params: Record<string, string>, body?: unknown, query: Query = {}): Promise<T> {
    const { method } = ADMIN_OPERATIONS[operationId];
    const path = fillPath(ADMIN_OPERATIONS[operationId].path, params);
    const search = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string | number] => entry[1] !== undefined).map(([name, value]) => [name, String(value)]));
    const response = await fetch(`${adminUrl}${ADMIN_PREFIX}${path}${search.size ? `?${search}` : ""}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
  return {
    call,
    listWorkspaces: (query: Paging & { name?: string } = {}) => call<List<{ id: string; name: string; created_at: string }>>("listWorkspaces", {}, undefined, query),
    createWorkspace: (name: string) => call<{ id: string; name: string; created_at: string }>("createWorkspace", {}, { name }),
    getWorkspace: (ws: string) => call<{ id: string; name: string; created_at: string }>("getWorkspace", { ws }),
    deleteWorkspace: (ws: string) => call<void>("deleteWorkspace", { ws }),
    listTeams: (ws: string, query: Paging = {}) => call<List<{ id: string; name: string }>>("listTeams", { ws }, undefined, query),
    createTeam: (ws: string, name: string) => call<{ id: string; name: string }>("createTeam", { ws }, { name }),
    listMembers: (ws: string, query: Paging = {}) => call<List<{ id: string; email: string; role: string; active: boolean; team_ids: string[] }>>("listMembers", { ws }, undefined, query),
    addMember: (ws: string, member: { email: string; name?: string; role: string; team_ids?: string[] }) =>
      call<{ id: string; email: string; role: string; active: boolean; team_ids: string[] }>("addMember", { ws }, member),
    getMember: (ws: string, id: string) => call<{ id: string; email: string; name: string | null; role: string; active: boolean; team_ids: string[] }>("getMember", { ws, id }),
    updateMember: (ws: string, id: string, changes: { role?: string; active?: boolean; team_ids?: string[]; name?: string | null }) =>
      call<{ id: string; role: string; active: boolean; team_ids: string[] }>("updateMember", { ws, id }, changes),
    createKey: (ws: string, key: Record<string, unknown>) => call<ApiKey & { key: string }>("createApiKey", { ws }, key),
    listKeys: (ws: string, query: Paging = {}) => call<List<ApiKey>>("listApiKeys", { ws }, undefined, query),
    getKey: (ws: string, id: string) => call<ApiKey>("getApiKey", { ws, id }),
    updateKey: (ws: string, id: string, changes: { name?: string; rate_limit_per_minute?: number | null; expires_at?: string | null }) =>
      call<ApiKey>("updateApiKey", { ws, id }, changes),
    rotateKey: (ws: string, id: string, options: { grace_seconds?: number; old_key_expires_at?: string } = {}) =>
      call<ApiKey & { key: string }>("rotateApiKey", { ws, id }, options),
    revokeKey: (ws: string, id: string) => call<void>("revokeApiKey", { ws, id }),
    auditLog: (ws: string, query: Paging = {}) => call<List<Record<string, unknown> & { action: string; resource_id: string }>>("getAuditLog", { ws }, undefined, query),
  };
}
export type AdminClient = ReturnType<typeof adminClient>;

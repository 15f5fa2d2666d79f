import { fillPath } from "@ws/shared";
import { ADMIN_OPERATIONS, ADMIN_PREFIX, type AdminOperationId } from "../admin/operations";

/** A small client of the management API, used by the CLI, the demo seed and the tests; routes come from the management table. */
export function adminClient(adminUrl: string, adminToken: string) {
  async function call<T>(operationId: AdminOperationId, params: Record<string, string>, body?: unknown): Promise<T> {
    const { method } = ADMIN_OPERATIONS[operationId];
    const path = fillPath(ADMIN_OPERATIONS[operationId].path, params);
    const response = await fetch(`${adminUrl}${ADMIN_PREFIX}${path}`, {
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
    createWorkspace: (name: string) => call<{ id: string; name: string; created_at: string }>("createWorkspace", {}, { name }),
    createTeam: (ws: string, name: string) => call<{ id: string; name: string }>("createTeam", { ws }, { name }),
    addMember: (ws: string, member: { email: string; name?: string; role: string; team_ids?: string[] }) =>
      call<{ id: string; email: string; role: string; active: boolean; team_ids: string[] }>("addMember", { ws }, member),
    updateMember: (ws: string, id: string, changes: { role?: string; active?: boolean; team_ids?: string[] }) =>
      call<{ id: string; role: string; active: boolean; team_ids: string[] }>("updateMember", { ws, id }, changes),
    createKey: (ws: string, key: Record<string, unknown>) => call<{ id: string; key: string; prefix: string; scopes: string[] }>("createApiKey", { ws }, key),
    listKeys: (ws: string) => call<{ data: Record<string, unknown>[]; total: number }>("listApiKeys", { ws }),
    revokeKey: (ws: string, id: string) => call<void>("revokeApiKey", { ws, id }),
  };
}
export type AdminClient = ReturnType<typeof adminClient>;

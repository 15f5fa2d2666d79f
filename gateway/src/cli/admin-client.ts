/** A small client of the management API (contract 8), used by the CLI, the demo seed and the tests. */
export function adminClient(adminUrl: string, adminToken: string) {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${adminUrl}/admin/v1${path}`, {
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
    createWorkspace: (name: string) => call<{ id: string; name: string; created_at: string }>("POST", "/workspaces", { name }),
    createTeam: (ws: string, name: string) => call<{ id: string; name: string }>("POST", `/workspaces/${ws}/teams`, { name }),
    addMember: (ws: string, member: { email: string; name?: string; role: string; team_ids?: string[] }) =>
      call<{ id: string; email: string; role: string; active: boolean; team_ids: string[] }>("POST", `/workspaces/${ws}/members`, member),
    updateMember: (ws: string, id: string, changes: { role?: string; active?: boolean; team_ids?: string[] }) =>
      call<{ id: string; role: string; active: boolean; team_ids: string[] }>("PATCH", `/workspaces/${ws}/members/${id}`, changes),
    createKey: (ws: string, key: Record<string, unknown>) => call<{ id: string; key: string; prefix: string; scopes: string[] }>("POST", `/workspaces/${ws}/api-keys`, key),
    listKeys: (ws: string) => call<{ data: Record<string, unknown>[]; total: number }>("GET", `/workspaces/${ws}/api-keys`),
    revokeKey: (ws: string, id: string) => call<void>("DELETE", `/workspaces/${ws}/api-keys/${id}`),
  };
}
export type AdminClient = ReturnType<typeof adminClient>;

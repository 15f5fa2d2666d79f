import postgres from "postgres";
import { PRINCIPAL_HEADER, signPrincipal, signingKeyFrom, uuidv7, type Principal } from "@ws/shared";
import { apiClient, readResponse, type ApiResponse } from "../../harness/http";
import type { TestSystem } from "../../harness/system";
import type { Tenant } from "../../harness/tenant";

/** A page, a calendar and an event in the tenant's workspace, made through the public API with a full-access key. */
export async function seedWorkspaceData(system: TestSystem, tenant: Tenant): Promise<{ key: string; pageId: string; calendarId: string; eventId: string }> {
  const key = await tenant.key();
  const call = apiClient(system.baseUrl, key);
  const page = await call("POST", "/v1/new-page", { title: "Doomed page" });
  const calendar = await call("POST", "/api/calendar/calendars", { name: "Doomed calendar" });
  const event = await call("POST", "/api/calendar/events", {
    calendar_id: calendar.body.id,
    title: "Doomed event",
    starts_at: "2026-03-02T10:00:00Z",
    ends_at: "2026-03-02T11:00:00Z",
  });
  for (const created of [page, calendar, event]) if (created.status !== 201) throw new Error(`seeding failed: ${created.status} ${created.text}`);
  return { key, pageId: page.body.id, calendarId: calendar.body.id, eventId: event.body.id };
}

/**
 * Asks a service directly, with a principal signed for the workspace, what it
 * still holds: the view no deleted key can give any more.
 */
export async function askService(system: TestSystem, service: "pages" | "calendar", workspaceId: string, path: string): Promise<ApiResponse> {
  const principal: Principal = {
    workspace_id: workspaceId,
    member_id: uuidv7(),
    key_id: uuidv7(),
    scopes: ["docs:read", "calendar:read"],
    target_team_ids: null,
    visible_team_ids: [],
    request_id: "management-e2e",
  };
  const base = service === "pages" ? system.pagesUrl : system.calendarUrl;
  const pathname = path.split("?")[0]!;
  const token = signPrincipal(principal, { method: "GET", path: pathname }, signingKeyFrom(system.signingKey));
  return readResponse(await fetch(`${base}${path}`, { headers: { [PRINCIPAL_HEADER]: token } }));
}

/** Rows per table that still name the workspace, read straight from PostgreSQL (only when the system runs on it). */
export async function rowsOfWorkspace(databaseUrl: string, workspaceId: string): Promise<Record<string, number>> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const counts: Record<string, number> = {};
    for (const table of ["api_keys", "members", "teams", "workspaces", "pages", "calendars", "calendar_events"]) {
      const column = table === "workspaces" ? "id" : "workspace_id";
      const [row] = await sql.unsafe(`select count(*)::int as n from ${table} where ${column} = $1`, [workspaceId]);
      counts[table] = row!.n as number;
    }
    return counts;
  } finally {
    await sql.end();
  }
}

import type { Call } from "../../harness/http";
import { seedTenantWithClient, type Tenant } from "../../harness/tenant";

export type { Call };

/** A fresh workspace with a full-access key and one workspace-level calendar. */
export async function calendarTenant(): Promise<{ tenant: Tenant; call: Call; calendarId: string; baseUrl: string }> {
  const { tenant, call, baseUrl } = await seedTenantWithClient();
  const created = await call("POST", "/api/calendar/calendars/", { name: "Main" });
  if (created.status !== 201) throw new Error(`calendar create failed: ${created.status} ${created.text}`);
  return { tenant, call, calendarId: created.body.id, baseUrl };
}

export function eventBody(calendarId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { calendar_id: calendarId, title: "Standup", starts_at: "2026-03-02T10:00:00Z", ends_at: "2026-03-02T10:15:00Z", ...overrides };
}

import { expect } from "bun:test";
import { apiClient, type Call } from "../../harness/http";
import { sharedSystem } from "../../harness/system";
import { seedTenantWithClient, type Tenant } from "../../harness/tenant";

export type { Call };

export const PAGES = "/v1/new-page";
export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/** A fresh workspace and a client holding a workspace-wide key with every scope. */
export async function pagesTenant(): Promise<{ tenant: Tenant; call: Call; baseUrl: string }> {
  const { tenant, call, baseUrl } = await seedTenantWithClient();
  return { tenant, call, baseUrl };
}

export async function clientFor(tenant: Tenant, options?: Record<string, unknown>): Promise<Call> {
  const system = await sharedSystem();
  return apiClient(system.baseUrl, await tenant.key(options));
}

export async function createPage(call: Call, body: Record<string, unknown>) {
  const response = await call("POST", PAGES, body);
  expect(response.status).toBe(201);
  return response.body as { id: string; title: string; content: string; team_id: string | null; created_at: string; updated_at: string };
}

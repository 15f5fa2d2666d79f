import { PRINCIPAL_HEADER, createLogger, migrate, signPrincipal, signingKeyFrom, uuidv7, type Database, type Principal } from "@ws/shared";
import { createApp } from "../app";

/** For tests: the pages app on a database, called in process with a signed principal, as the gateway calls it. */
export async function inProcessPages(database: Database) {
  const key = signingKeyFrom("in-process-pages-signing-key-in-process-pages");
  await migrate(database.sql, "pages", new URL("../migrations/", import.meta.url));
  const app = createApp({ sql: database.sql, principalKeys: [key], logger: createLogger("pages", "error"), isDraining: () => false });

  /** `json`: the body's text as sent, well-formed or not. */
  async function callWithText(who: Principal, method: string, pathAndQuery: string, json?: string) {
    const path = new URL(pathAndQuery, "http://pages").pathname;
    const headers: Record<string, string> = { [PRINCIPAL_HEADER]: await signPrincipal(who, { method, path }, key) };
    if (json !== undefined) headers["content-type"] = "application/json";
    const request = new Request(`http://pages${pathAndQuery}`, { method, headers, body: json });
    const response = await app.handle(request);
    const text = await response.text();
    return { request, status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }
  const call = (who: Principal, method: string, pathAndQuery: string, body?: unknown) =>
    callWithText(who, method, pathAndQuery, body === undefined ? undefined : JSON.stringify(body));
  return { call, callWithText };
}

/** A principal of a new workspace, with every pages scope unless overridden. */
export function newWorkspacePrincipal(overrides: Partial<Principal> = {}): Principal {
  return {
    workspace_id: uuidv7(),
    member_id: uuidv7(),
    key_id: uuidv7(),
    scopes: ["docs:read", "docs:create", "docs:update", "docs:delete"],
    target_team_ids: null,
    visible_team_ids: [],
    request_id: "in-process",
    ...overrides,
  };
}

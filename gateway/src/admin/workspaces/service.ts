import { uuidv7 } from "@ws/shared";
import { insertWorkspace } from "../../identity/workspaces";
import type { AdminDeps } from "../admin-context";
import type { CreateWorkspaceBody } from "./model";

export async function createWorkspace(deps: AdminDeps, body: CreateWorkspaceBody) {
  const row = await insertWorkspace(deps.sql, { id: uuidv7(), name: body.name.trim() });
  return { id: row.id, name: row.name, created_at: row.created_at.toISOString() };
}

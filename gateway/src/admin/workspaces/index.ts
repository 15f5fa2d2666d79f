import { Elysia, t } from "elysia";
import { STORABLE_NON_BLANK_PATTERN, uuidv7 } from "@ws/shared";
import { insertWorkspace } from "../../identity/workspaces";
import type { AdminDeps } from "../admin-context";

export const CreateWorkspaceBody = t.Object({ name: t.String({ minLength: 1, maxLength: 200, pattern: STORABLE_NON_BLANK_PATTERN }) });

export function workspaceRoutes(deps: AdminDeps) {
  return new Elysia().post(
    "/admin/v1/workspaces",
    async ({ body, set }) => {
      const row = await insertWorkspace(deps.sql, { id: uuidv7(), name: body.name.trim() });
      set.status = 201;
      return { id: row.id, name: row.name, created_at: row.created_at.toISOString() };
    },
    { body: CreateWorkspaceBody },
  );
}

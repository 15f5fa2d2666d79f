import { Elysia, t } from "elysia";
import { STORABLE_NON_BLANK_PATTERN, uuidv7 } from "@ws/shared";
import { insertTeam } from "../../identity/teams";
import { assertWorkspace, changeCredentials, type AdminDeps } from "../admin-context";

export const CreateTeamBody = t.Object({ name: t.String({ minLength: 1, maxLength: 200, pattern: STORABLE_NON_BLANK_PATTERN }) });

export function teamRoutes(deps: AdminDeps) {
  return new Elysia().post(
    "/admin/v1/workspaces/:ws/teams",
    async ({ params, body, set }) => {
      await assertWorkspace(deps.sql, params.ws);
      // Owners and admins see every team, so a new team changes what their keys see.
      const team = await changeCredentials(deps, params.ws, (tx) => insertTeam(tx, { id: uuidv7(), workspaceId: params.ws, name: body.name.trim() }));
      set.status = 201;
      return team;
    },
    { body: CreateTeamBody },
  );
}

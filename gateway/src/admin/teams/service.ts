import { readList, resolvePaging, uuidv7 } from "@ws/shared";
import { countTeams, insertTeam, listTeams, type TeamRow } from "../../identity/teams";
import { applyChange, assertWorkspace, type AdminCaller, type AdminDeps } from "../admin-context";
import type { CreateTeamBody } from "./model";

export async function createTeam(deps: AdminDeps, caller: AdminCaller, workspaceId: string, body: CreateTeamBody): Promise<TeamRow> {
  await assertWorkspace(deps.sql, workspaceId);
  // Owners and admins see every team, so a new team changes what their keys see.
  return applyChange(
    deps,
    caller,
    async ({ tx, audit }) => {
      const team = await insertTeam(tx, { id: uuidv7(), workspaceId, name: body.name.trim() });
      await audit({ workspaceId, action: "team.create", resourceType: "team", resourceId: team.id, after: team });
      return team;
    },
    { credentialsOf: workspaceId },
  );
}

export async function listWorkspaceTeams(deps: AdminDeps, workspaceId: string, query: { page?: number; per_page?: number }) {
  await assertWorkspace(deps.sql, workspaceId);
  return readList(deps.sql, resolvePaging(query, "validation_error"), {
    count: (tx) => countTeams(tx, workspaceId),
    rows: (tx, limit, offset) => listTeams(tx, workspaceId, { limit, offset }),
  });
}

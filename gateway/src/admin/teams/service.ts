import { uuidv7 } from "@ws/shared";
import { insertTeam, type TeamRow } from "../../identity/teams";
import { assertWorkspace, changeCredentials, type AdminDeps } from "../admin-context";
import type { CreateTeamBody } from "./model";

export async function createTeam(deps: AdminDeps, workspaceId: string, body: CreateTeamBody): Promise<TeamRow> {
  await assertWorkspace(deps.sql, workspaceId);
  // Owners and admins see every team, so a new team changes what their keys see.
  return changeCredentials(deps, workspaceId, (tx) => insertTeam(tx, { id: uuidv7(), workspaceId, name: body.name.trim() }));
}

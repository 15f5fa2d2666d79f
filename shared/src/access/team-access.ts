import { ApiError } from "../errors/api-error";
import type { Principal } from "../principal/principal";

/**
 * Contract 6, for one resource that lives in a team (or at workspace level when
 * teamId is null): hidden from the creator is 404, outside the key's targets 403.
 */
export function assertCanAccess(principal: Principal, teamId: string | null, what = "The resource"): void {
  if (teamId !== null && !principal.visible_team_ids.includes(teamId)) {
    throw ApiError.notFound(`${what} does not exist.`);
  }
  if (principal.target_team_ids !== null && (teamId === null || !principal.target_team_ids.includes(teamId))) {
    throw new ApiError("insufficient_permissions", `The API key does not target the team of ${what.toLowerCase()}.`);
  }
}

/** Which teams a list may show: null means workspace-level resources are included too. */
export interface ListVisibility {
  teamIds: string[];
  includeWorkspaceLevel: boolean;
}

export function listVisibility(principal: Principal): ListVisibility {
  if (principal.target_team_ids !== null) {
    return { teamIds: principal.target_team_ids.filter((id) => principal.visible_team_ids.includes(id)), includeWorkspaceLevel: false };
  }
  return { teamIds: principal.visible_team_ids, includeWorkspaceLevel: true };
}

/**
 * The team a new resource goes into. A team-scoped key with one team defaults to
 * it; with several it must name one; a workspace-wide key defaults to workspace level.
 */
export function resolveCreateTeam(principal: Principal, requested: string | null | undefined): string | null {
  const targets = principal.target_team_ids;
  if (requested === undefined || requested === null) {
    if (targets === null) return null;
    if (targets.length === 1) return targets[0]!;
    throw ApiError.validation(["team_id"], "This API key targets several teams: name one in team_id.");
  }
  if (targets !== null && !targets.includes(requested)) {
    throw new ApiError("insufficient_permissions", "The API key does not target that team.");
  }
  if (!principal.visible_team_ids.includes(requested)) {
    // A team the creator cannot see answers as any resource they cannot see does.
    throw new ApiError("not_found", "No team with that team_id is visible to the key's creator.", { details: { fields: ["team_id"] } });
  }
  return requested;
}

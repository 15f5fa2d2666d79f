import { ApiError } from "../errors/api-error";
import type { Principal } from "../principal/principal";

/**
 * The one owner of the team rules. A key reaches a team only while both hold:
 * the key targets it (or is workspace-wide) and the key's creator can see it now.
 * Every operation (create, read, update, delete, list) goes through the
 * functions below, so the creator losing a team takes it from the key at once.
 */

/** The teams a team-scoped key can still reach: its targets that its creator sees now; null for a workspace-wide key. */
export function reachableTargets(principal: Principal): string[] | null {
  if (principal.target_team_ids === null) return null;
  return principal.target_team_ids.filter((id) => principal.visible_team_ids.includes(id));
}

/**
 * For one resource that lives in a team (or at workspace level when teamId is
 * null): hidden from the creator is 404, outside the key's targets 403.
 */
export function assertCanAccess(principal: Principal, teamId: string | null, what = "The resource"): void {
  if (teamId !== null && !principal.visible_team_ids.includes(teamId)) {
    throw ApiError.notFound(`${what} does not exist.`);
  }
  const reachable = reachableTargets(principal);
  if (reachable !== null && (teamId === null || !reachable.includes(teamId))) {
    throw new ApiError("insufficient_permissions", `The API key does not target the team of ${what.toLowerCase()}.`);
  }
}

/** Which teams a list may show, and whether workspace-level resources are included too. */
export interface ListVisibility {
  teamIds: string[];
  includeWorkspaceLevel: boolean;
}

export function listVisibility(principal: Principal): ListVisibility {
  const reachable = reachableTargets(principal);
  if (reachable !== null) return { teamIds: reachable, includeWorkspaceLevel: false };
  return { teamIds: principal.visible_team_ids, includeWorkspaceLevel: true };
}

/**
 * The team a new resource goes into. Without team_id, a team-scoped key with
 * one team defaults to it; with several it must name one; a workspace-wide key
 * defaults to workspace level. `team_id: null` asks for workspace level, which
 * a team-scoped key does not target (403). A named team must be one the key
 * targets (403) and the creator sees (404 naming team_id). Without team_id, a
 * team-scoped key none of whose teams its creator still sees has nowhere to
 * create (403).
 */
export function resolveCreateTeam(principal: Principal, requested: string | null | undefined): string | null {
  const targets = principal.target_team_ids;
  if (requested === null && targets !== null) {
    throw new ApiError("insufficient_permissions", "The API key targets teams only: it cannot create at workspace level (team_id null).");
  }
  if (requested === undefined || requested === null) {
    if (targets === null) return null;
    const reachable = reachableTargets(principal)!;
    if (reachable.length === 0) {
      throw new ApiError("insufficient_permissions", "The member who created this API key no longer belongs to any of its teams.");
    }
    if (targets.length === 1) return reachable[0]!;
    throw ApiError.validation(["team_id"], "This API key targets several teams: name one in team_id.", "required");
  }
  // A UUID in capitals names the same team: team ids are held in lower case.
  const team = requested.toLowerCase();
  if (targets !== null && !targets.includes(team)) {
    throw new ApiError("insufficient_permissions", "The API key does not target that team.");
  }
  if (!principal.visible_team_ids.includes(team)) {
    // A team the creator cannot see answers as any resource they cannot see does.
    throw new ApiError("not_found", "No team with that team_id is visible to the key's creator.", {
      details: { fields: ["team_id"], errors: [{ field: "team_id", rule: "reference", message: "team_id names no team the key's creator can see" }] },
    });
  }
  return team;
}

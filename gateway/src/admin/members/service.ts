import { ApiError, isUuid, transaction, uuidv7 } from "@ws/shared";
import { findMember, insertMember, memberEmailTaken, replaceTeamMemberships, updateMember, type MemberRow } from "../../identity/members";
import { existingTeamIds } from "../../identity/teams";
import { assertWorkspace, changeCredentials, type AdminDeps } from "../admin-context";
import type { CreateMemberBody, UpdateMemberBody } from "./model";

async function assertTeamsOfWorkspace(deps: AdminDeps, workspaceId: string, teamIds: string[]): Promise<string[]> {
  const unique = [...new Set(teamIds)];
  const found = await existingTeamIds(deps.sql, workspaceId, unique);
  if (found.length !== unique.length) throw ApiError.validation(["team_ids"], "team_ids names a team that is not in this workspace.");
  return unique;
}

export async function addMember(deps: AdminDeps, workspaceId: string, body: CreateMemberBody): Promise<MemberRow> {
  await assertWorkspace(deps.sql, workspaceId);
  if (await memberEmailTaken(deps.sql, workspaceId, body.email)) throw ApiError.validation(["email"], "A member with this email already exists.");
  const teamIds = await assertTeamsOfWorkspace(deps, workspaceId, body.team_ids ?? []);
  const id = uuidv7();
  await transaction(deps.sql, "", async (tx) => {
    await insertMember(tx, { id, workspaceId, email: body.email, name: body.name ?? null, role: body.role });
    await replaceTeamMemberships(tx, id, teamIds);
  });
  return (await findMember(deps.sql, workspaceId, id))!;
}

export async function changeMember(deps: AdminDeps, workspaceId: string, memberId: string, body: UpdateMemberBody): Promise<MemberRow> {
  await assertWorkspace(deps.sql, workspaceId);
  if (!isUuid(memberId) || !(await findMember(deps.sql, workspaceId, memberId))) throw ApiError.notFound("No such member.");
  if (body.role === undefined && body.active === undefined && body.team_ids === undefined) {
    throw ApiError.validation(["role", "active", "team_ids"], "Send at least one of role, active or team_ids.");
  }
  const teamIds = body.team_ids && (await assertTeamsOfWorkspace(deps, workspaceId, body.team_ids));
  await changeCredentials(deps, workspaceId, async (tx) => {
    await updateMember(tx, memberId, { role: body.role, active: body.active });
    if (teamIds) await replaceTeamMemberships(tx, memberId, teamIds);
  });
  return (await findMember(deps.sql, workspaceId, memberId))!;
}

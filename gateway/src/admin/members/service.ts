import { ApiError, isUuid, readList, resolvePaging, uuidv7 } from "@ws/shared";
import { countMembers, findMember, insertMember, listMembers, memberEmailTaken, replaceTeamMemberships, updateMember, type MemberRow } from "../../identity/members";
import { existingTeamIds } from "../../identity/teams";
import { applyChange, assertWorkspace, type AdminCaller, type AdminDeps } from "../admin-context";
import type { CreateMemberBody, UpdateMemberBody } from "./model";

async function assertTeamsOfWorkspace(deps: AdminDeps, workspaceId: string, teamIds: string[]): Promise<string[]> {
  const unique = [...new Set(teamIds)];
  const found = await existingTeamIds(deps.sql, workspaceId, unique);
  if (found.length !== unique.length) throw ApiError.validation(["team_ids"], "team_ids names a team that is not in this workspace.", "reference");
  return unique;
}

async function existingMember(deps: AdminDeps, workspaceId: string, memberId: string): Promise<MemberRow> {
  await assertWorkspace(deps.sql, workspaceId);
  const member = isUuid(memberId) ? await findMember(deps.sql, workspaceId, memberId) : undefined;
  if (!member) throw ApiError.notFound("No such member.");
  return member;
}

export async function addMember(deps: AdminDeps, caller: AdminCaller, workspaceId: string, body: CreateMemberBody): Promise<MemberRow> {
  await assertWorkspace(deps.sql, workspaceId);
  if (await memberEmailTaken(deps.sql, workspaceId, body.email)) throw ApiError.validation(["email"], "A member with this email already exists.", "unique");
  const teamIds = await assertTeamsOfWorkspace(deps, workspaceId, body.team_ids ?? []);
  const id = uuidv7();
  return applyChange(deps, caller, async ({ tx, audit }) => {
    await insertMember(tx, { id, workspaceId, email: body.email, name: body.name ?? null, role: body.role });
    await replaceTeamMemberships(tx, id, teamIds);
    const member = (await findMember(tx, workspaceId, id))!;
    await audit({ workspaceId, action: "member.add", resourceType: "member", resourceId: id, after: member });
    return member;
  });
}

export function getMember(deps: AdminDeps, workspaceId: string, memberId: string): Promise<MemberRow> {
  return existingMember(deps, workspaceId, memberId);
}

export async function listWorkspaceMembers(deps: AdminDeps, workspaceId: string, query: { page?: number; per_page?: number }) {
  await assertWorkspace(deps.sql, workspaceId);
  return readList(deps.sql, resolvePaging(query, "validation_error"), {
    count: (tx) => countMembers(tx, workspaceId),
    rows: (tx, limit, offset) => listMembers(tx, workspaceId, { limit, offset }),
  });
}

export async function changeMember(deps: AdminDeps, caller: AdminCaller, workspaceId: string, memberId: string, body: UpdateMemberBody): Promise<MemberRow> {
  await existingMember(deps, workspaceId, memberId);
  if (body.role === undefined && body.active === undefined && body.team_ids === undefined && body.name === undefined) {
    throw ApiError.validation(["role", "active", "team_ids", "name"], "Send at least one of role, active, team_ids or name.", "at_least_one");
  }
  const teamIds = body.team_ids && (await assertTeamsOfWorkspace(deps, workspaceId, body.team_ids));
  return applyChange(
    deps,
    caller,
    async ({ tx, audit }) => {
      const before = (await findMember(tx, workspaceId, memberId, { lock: true }))!;
      await updateMember(tx, memberId, { role: body.role, active: body.active, name: body.name });
      if (teamIds) await replaceTeamMemberships(tx, memberId, teamIds);
      const after = (await findMember(tx, workspaceId, memberId))!;
      await audit({ workspaceId, action: "member.update", resourceType: "member", resourceId: memberId, before, after });
      return after;
    },
    { credentialsOf: workspaceId },
  );
}

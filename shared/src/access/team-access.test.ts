import { describe, expect, test } from "bun:test";
import { ApiError } from "../errors/api-error";
import type { Principal } from "../principal/principal";
import { assertCanAccess, listVisibility, resolveCreateTeam } from "./team-access";

const T = "0190d6a0-0000-7000-8000-00000000000a";
const U = "0190d6a0-0000-7000-8000-00000000000b";

function principal(target: string[] | null, visible: string[]): Principal {
  return { workspace_id: "w", member_id: "m", key_id: "k", scopes: [], target_team_ids: target, visible_team_ids: visible, request_id: "r" };
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof ApiError ? error.code : "not an ApiError";
  }
}

describe("the team rule: the key's targets that its creator sees now", () => {
  test("when the creator sees the key's one team, then a create without team_id goes there", () => {
    expect(resolveCreateTeam(principal([T], [T]), undefined)).toBe(T);
    expect(resolveCreateTeam(principal([T], [T, U]), undefined)).toBe(T);
  });

  test("when team_id names a team in capitals, then it is the same team, for a key that targets it and for a workspace-wide key", () => {
    expect(resolveCreateTeam(principal([T], [T]), T.toUpperCase())).toBe(T);
    expect(resolveCreateTeam(principal(null, [T, U]), U.toUpperCase())).toBe(U);
  });

  test("when a team-scoped key asks for workspace level with team_id null, then 403: it targets teams only", () => {
    expect(codeOf(() => resolveCreateTeam(principal([T], [T, U]), null))).toBe("insufficient_permissions");
    expect(codeOf(() => resolveCreateTeam(principal([T, U], [T, U]), null))).toBe("insufficient_permissions");
  });

  test("when the creator no longer sees the key's one team, then a create without team_id is 403 and naming it is 404", () => {
    expect(codeOf(() => resolveCreateTeam(principal([T], []), undefined))).toBe("insufficient_permissions");
    expect(codeOf(() => resolveCreateTeam(principal([T], [U]), null))).toBe("insufficient_permissions");
    expect(codeOf(() => resolveCreateTeam(principal([T], [U]), T))).toBe("not_found");
  });

  test("when a key has several teams and the creator sees only one, then team_id is still required and only the visible one is accepted", () => {
    expect(codeOf(() => resolveCreateTeam(principal([T, U], [T]), undefined))).toBe("validation_error");
    expect(resolveCreateTeam(principal([T, U], [T]), T)).toBe(T);
    expect(codeOf(() => resolveCreateTeam(principal([T, U], [T]), U))).toBe("not_found");
    expect(codeOf(() => resolveCreateTeam(principal([T, U], []), undefined))).toBe("insufficient_permissions");
  });

  test("when a resource is in a team the creator no longer sees, then it is 404 even for a key that targets that team", () => {
    expect(codeOf(() => assertCanAccess(principal([T], []), T))).toBe("not_found");
    expect(codeOf(() => assertCanAccess(principal([T], [T]), T))).toBeUndefined();
    expect(codeOf(() => assertCanAccess(principal([T], [T]), null))).toBe("insufficient_permissions");
  });

  test("when a team-scoped key lists, then it sees only its teams that the creator still sees", () => {
    expect(listVisibility(principal([T, U], [U]))).toEqual({ teamIds: [U], includeWorkspaceLevel: false });
    expect(listVisibility(principal([T], []))).toEqual({ teamIds: [], includeWorkspaceLevel: false });
    expect(listVisibility(principal(null, [U]))).toEqual({ teamIds: [U], includeWorkspaceLevel: true });
  });
});

import type { AdminDeps } from "../admin-context";
import type { AdminHandlers } from "../operations";
import * as teams from "./service";

export function teamOperations(deps: AdminDeps): AdminHandlers<"listTeams" | "createTeam"> {
  return {
    listTeams: ({ params, query }) => teams.listWorkspaceTeams(deps, params.ws, query),
    createTeam: ({ caller, params, body }) => teams.createTeam(deps, caller, params.ws, body),
  };
}

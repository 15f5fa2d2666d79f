import type { AdminDeps } from "../admin-context";
import type { AdminHandlers } from "../operations";
import * as teams from "./service";

export function teamOperations(deps: AdminDeps): AdminHandlers<"createTeam"> {
  return {
    createTeam: ({ params, body }) => teams.createTeam(deps, params.ws, body),
  };
}

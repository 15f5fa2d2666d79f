import type { AdminDeps } from "../admin-context";
import type { AdminHandlers } from "../operations";
import * as members from "./service";

export function memberOperations(deps: AdminDeps): AdminHandlers<"addMember" | "updateMember"> {
  return {
    addMember: ({ params, body }) => members.addMember(deps, params.ws, body),
    updateMember: ({ params, body }) => members.changeMember(deps, params.ws, params.id, body),
  };
}

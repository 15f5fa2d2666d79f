import type { AdminDeps } from "../admin-context";
import type { AdminHandlers } from "../operations";
import * as members from "./service";

export function memberOperations(deps: AdminDeps): AdminHandlers<"listMembers" | "addMember" | "getMember" | "updateMember"> {
  return {
    listMembers: ({ params, query }) => members.listWorkspaceMembers(deps, params.ws, query),
    addMember: ({ caller, params, body }) => members.addMember(deps, caller, params.ws, body),
    getMember: ({ params }) => members.getMember(deps, params.ws, params.id),
    updateMember: ({ caller, params, body }) => members.changeMember(deps, caller, params.ws, params.id, body),
  };
}

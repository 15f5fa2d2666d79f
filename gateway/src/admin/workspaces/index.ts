import type { AdminDeps } from "../admin-context";
import type { AdminHandlers } from "../operations";
import * as workspaces from "./service";

export function workspaceOperations(deps: AdminDeps): AdminHandlers<"listWorkspaces" | "createWorkspace" | "getWorkspace" | "deleteWorkspace"> {
  return {
    listWorkspaces: ({ query }) => workspaces.listAllWorkspaces(deps, query),
    createWorkspace: ({ caller, body }) => workspaces.createWorkspace(deps, caller, body),
    getWorkspace: ({ params }) => workspaces.getWorkspace(deps, params.ws),
    deleteWorkspace: ({ caller, params }) => workspaces.deleteWorkspace(deps, caller, params.ws),
  };
}

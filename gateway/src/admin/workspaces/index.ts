import type { AdminDeps } from "../admin-context";
import type { AdminHandlers } from "../operations";
import * as workspaces from "./service";

export function workspaceOperations(deps: AdminDeps): AdminHandlers<"createWorkspace"> {
  return {
    createWorkspace: ({ body }) => workspaces.createWorkspace(deps, body),
  };
}

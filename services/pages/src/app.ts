import { serviceApp, type ServiceDeps } from "@ws/shared";
import { pageOperations } from "./pages";
import { purgeWorkspace } from "./pages/service";

export function createApp(deps: ServiceDeps) {
  return serviceApp(deps, "pages", pageOperations(deps), { purgeWorkspace: (workspaceId) => purgeWorkspace(deps.sql, workspaceId) });
}
export type PagesApp = ReturnType<typeof createApp>;

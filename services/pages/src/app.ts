import { serviceApp, type ServiceDeps } from "@ws/shared";
import { pageOperations } from "./pages";

export function createApp(deps: ServiceDeps) {
  return serviceApp(deps, "pages", pageOperations(deps));
}
export type PagesApp = ReturnType<typeof createApp>;

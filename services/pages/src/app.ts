import { serviceApp, type ServiceDeps } from "@ws/shared";
import { pageRoutes } from "./pages";

/** The pages service: contract 3 says its validation failures are 422 validation_error. */
export function createApp(deps: ServiceDeps) {
  return serviceApp(deps, { validationCode: "validation_error" }).use(pageRoutes(deps));
}
export type PagesApp = ReturnType<typeof createApp>;

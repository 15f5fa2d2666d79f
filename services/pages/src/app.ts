import { serviceApp, type ServiceDeps } from "@ws/shared";
import { pageOperations } from "./pages";
import { LARGE_CONTENTS_BYTES, largeContentsInTransit } from "./pages/large-contents";
import { purgeWorkspace } from "./pages/service";

export function createApp(deps: ServiceDeps) {
  deps.metrics?.registry.collect(
    "pages_large_contents_bytes_in_transit",
    `Bytes of large page contents held by answers being made or sent, within a budget of ${LARGE_CONTENTS_BYTES}.`,
    "gauge",
    largeContentsInTransit,
  );
  return serviceApp(deps, "pages", pageOperations(deps), { purgeWorkspace: (workspaceId) => purgeWorkspace(deps.sql, workspaceId) });
}
export type PagesApp = ReturnType<typeof createApp>;

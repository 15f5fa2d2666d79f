import { serviceApp, type ServiceDeps } from "@ws/shared";
import { calendarOperations } from "./calendars";
import { eventOperations } from "./events";
import { purgeWorkspace } from "./workspaces/service";

export function createApp(deps: ServiceDeps) {
  return serviceApp(
    deps,
    "calendar",
    { ...calendarOperations(deps), ...eventOperations(deps) },
    { purgeWorkspace: (workspaceId) => purgeWorkspace(deps.sql, workspaceId) },
  );
}
export type CalendarApp = ReturnType<typeof createApp>;

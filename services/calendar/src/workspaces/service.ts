import type { Pool } from "@ws/shared";
import { deleteWorkspaceCalendars } from "../calendars/repository";
import { deleteWorkspaceEvents } from "../events/repository";

/** The workspace was deleted: its events and calendars go with it, together. */
export async function purgeWorkspace(sql: Pool, workspaceId: string): Promise<{ events: number; calendars: number }> {
  return sql.begin(async (tx) => {
    const events = await deleteWorkspaceEvents(tx, workspaceId);
    const calendars = await deleteWorkspaceCalendars(tx, workspaceId);
    return { events, calendars };
  });
}

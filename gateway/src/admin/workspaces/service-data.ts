import {
  ApiError,
  fillPath,
  signWorkspacePurge,
  WORKSPACE_PURGE_HEADER,
  WORKSPACE_PURGE_PATH,
  type Logger,
  type PurgeCounts,
  type SigningKey,
} from "@ws/shared";

/** The data a workspace has in the services (pages, calendars, events), which may live in other databases. */
export interface ServiceData {
  /** Deletes it in every service; per service, how many rows of each kind went. Safe to repeat. */
  purgeWorkspace(workspaceId: string, requestId: string): Promise<Record<string, PurgeCounts>>;
}

/** A purge deletes a whole workspace's rows in one transaction: far more than one API request's work. */
const PURGE_TIMEOUT_MS = 60_000;

/**
 * Asks each service to delete the workspace's data through its internal purge
 * path, with an order signed by the internal signing key for exactly that
 * workspace. Any service that fails makes the whole purge fail (503), so the
 * caller can send the delete again; services that succeeded find nothing the
 * second time.
 */
export function serviceDataOf(deps: { upstreams: Record<string, string>; signingKey: SigningKey; logger: Logger }): ServiceData {
  return {
    async purgeWorkspace(workspaceId, requestId) {
      const path = fillPath(WORKSPACE_PURGE_PATH, { ws: workspaceId });
      const purged = await Promise.all(
        Object.entries(deps.upstreams).map(async ([service, base]) => {
          try {
            const response = await fetch(`${base}${path}`, {
              method: "DELETE",
              headers: {
                [WORKSPACE_PURGE_HEADER]: signWorkspacePurge(workspaceId, { method: "DELETE", path, requestId }, deps.signingKey),
                "x-request-id": requestId,
              },
              signal: AbortSignal.timeout(PURGE_TIMEOUT_MS),
            });
            if (!response.ok) throw new Error(`answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
            const body = (await response.json()) as { deleted: PurgeCounts };
            return [service, body.deleted] as const;
          } catch (error) {
            deps.logger.warn("workspace purge failed in a service", { service, workspace_id: workspaceId, request_id: requestId, error: String(error) });
            throw new ApiError(
              "service_unavailable",
              `The ${service} service could not delete the workspace's data; the workspace's keys are revoked. Send the delete again.`,
            );
          }
        }),
      );
      return Object.fromEntries(purged);
    },
  };
}

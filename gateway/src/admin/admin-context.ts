import { ApiError, isUuid, transaction, type Logger, type Pool, type Sql, type TransactionSql } from "@ws/shared";
import type { EpochPropagation } from "../auth/epoch-propagation";
import { bumpAuthEpoch, workspaceExists } from "../identity/workspaces";

/** What every management operation is handed. */
export interface AdminDeps {
  sql: Pool;
  epochs: Pick<EpochPropagation, "publish">;
  keyPrefix: string;
  logger: Logger;
}

export async function assertWorkspace(sql: Sql, workspaceId: string): Promise<void> {
  if (!isUuid(workspaceId) || !(await workspaceExists(sql, workspaceId))) throw ApiError.notFound("No such workspace.");
}

/**
 * Runs a change that can alter what the workspace's keys may do: the epoch
 * rises in the same transaction, and is published once it has committed. The
 * call answers only once the epoch has reached Redis, where every replica
 * compares its cached keys with it. When Redis does not take it in time, the
 * answer is 503 saying the change is committed but not yet in force everywhere;
 * the publish goes on being retried until it lands.
 */
export async function changeCredentials<T>(deps: AdminDeps, workspaceId: string, change: (tx: TransactionSql) => Promise<T>): Promise<T> {
  const [result, epoch] = await transaction(deps.sql, "", async (tx) => [await change(tx), await bumpAuthEpoch(tx, workspaceId)] as const);
  if (!(await deps.epochs.publish(workspaceId, epoch))) {
    throw new ApiError(
      "service_unavailable",
      "The change is committed but not yet propagated to every gateway replica; it takes effect everywhere once Redis is reachable. Do not repeat it.",
      { details: { committed: true, propagated: false } },
    );
  }
  return result as T;
}

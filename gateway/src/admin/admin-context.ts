import { ApiError, isUuid, type Logger, type Pool, type Sql, type TransactionSql } from "@ws/shared";
import type { CredentialEpochs } from "../auth/credential-epochs";
import { bumpAuthEpoch, workspaceExists } from "../identity/workspaces";

/** What every management operation is handed. */
export interface AdminDeps {
  sql: Pool;
  epochs: CredentialEpochs;
  keyPrefix: string;
  logger: Logger;
}

export async function assertWorkspace(sql: Sql, workspaceId: string): Promise<void> {
  if (!isUuid(workspaceId) || !(await workspaceExists(sql, workspaceId))) throw ApiError.notFound("No such workspace.");
}

/**
 * Runs a change that can alter what the workspace's keys may do: the epoch
 * rises in the same transaction, and is published once it has committed. A
 * failed publish does not undo the change: while Redis is unreachable no replica
 * trusts a cached key, and the first key read afterwards raises the published
 * epoch to the database's (auth/authenticator.ts).
 */
export async function changeCredentials<T>(deps: AdminDeps, workspaceId: string, change: (tx: TransactionSql) => Promise<T>): Promise<T> {
  const [result, epoch] = await deps.sql.begin(async (tx) => [await change(tx), await bumpAuthEpoch(tx, workspaceId)] as const);
  await deps.epochs.publish(workspaceId, epoch).catch((error) => {
    deps.logger.warn("credential epoch not published; replicas catch up on their next key read", { workspace_id: workspaceId, error: String(error) });
  });
  return result as T;
}

import { ApiError, isUuid, uuidv7, writeWithin, type Deadline, type Logger, type Pool, type Sql, type TransactionSql } from "@ws/shared";
import type { EpochPropagation } from "../auth/epoch-propagation";
import { insertAuditEntry, type AuditEntryRow } from "../identity/audit-log";
import { bumpAuthEpoch, workspaceExists } from "../identity/workspaces";
import type { ServiceData } from "./workspaces/service-data";

/** What every management operation is handed. */
export interface AdminDeps {
  sql: Pool;
  epochs: Pick<EpochPropagation, "publish">;
  keyPrefix: string;
  logger: Logger;
  /** The services' data of a workspace, which the gateway's database does not hold. */
  serviceData: ServiceData;
}

/** Who asked for a management change, as the audit log records it. */
export interface AdminCaller {
  requestId: string;
  /** A fingerprint of the admin credential, never the credential. */
  actor: string;
  /** The request's: a change commits before it, or not at all (the request is then answered 503). */
  deadline: Deadline;
}

export async function assertWorkspace(sql: Sql, workspaceId: string): Promise<void> {
  if (!isUuid(workspaceId) || !(await workspaceExists(sql, workspaceId))) throw ApiError.notFound("No such workspace.");
}

/** One change as the audit log records it; resource ids are the resource's own. */
export interface AuditedChange {
  workspaceId: string;
  action: string;
  resourceType: "workspace" | "team" | "member" | "api_key";
  resourceId: string;
  before?: object | null;
  after?: object | null;
}

export interface ChangeScope {
  tx: TransactionSql;
  /** Records the change in the audit log, in this transaction: it is kept exactly when the change is. */
  audit(change: AuditedChange): Promise<void>;
  /** Says the work found nothing to change (a concurrent call did it first): the workspace's keys keep their credential epoch. */
  unchanged(): void;
}

/**
 * Runs a management change in one transaction with its audit entries, and
 * writes each entry as a log line once the change has committed. The
 * transaction commits only within the request's deadline (`writeWithin`): a
 * request answered 503 at its deadline never takes effect later.
 *
 * With `credentialsOf`, the change can alter what that workspace's keys may do:
 * its credential epoch rises in the same transaction and is published once it
 * has committed. The call answers only once the epoch has reached Redis, where
 * every replica compares its cached keys with it; when Redis does not take it
 * in time, the answer is 503 saying the change is committed but not yet in
 * force everywhere, and the publish goes on being retried until it lands.
 */
export async function applyChange<T>(
  deps: AdminDeps,
  caller: AdminCaller,
  work: (scope: ChangeScope) => Promise<T>,
  options: { credentialsOf?: string } = {},
): Promise<T> {
  const entries: AuditEntryRow[] = [];
  const [result, epoch] = await writeWithin(deps.sql, caller.deadline, async (tx) => {
    let changed = true;
    const audit = async (change: AuditedChange) => {
      entries.push(
        await insertAuditEntry(tx, {
          id: uuidv7(),
          workspace_id: change.workspaceId,
          action: change.action,
          resource_type: change.resourceType,
          resource_id: change.resourceId,
          before: (change.before ?? null) as Record<string, unknown> | null,
          after: (change.after ?? null) as Record<string, unknown> | null,
          request_id: caller.requestId,
          actor: caller.actor,
        }),
      );
    };
    const value = await work({ tx, audit, unchanged: () => void (changed = false) });
    return [value, options.credentialsOf && changed ? await bumpAuthEpoch(tx, options.credentialsOf) : null] as const;
  });
  for (const entry of entries) {
    deps.logger.info("management change", {
      audit_id: entry.id,
      action: entry.action,
      workspace_id: entry.workspace_id,
      resource_type: entry.resource_type,
      resource_id: entry.resource_id,
      request_id: entry.request_id,
      actor: entry.actor,
    });
  }
  if (epoch !== null && options.credentialsOf && !(await deps.epochs.publish(options.credentialsOf, epoch))) {
    throw new ApiError(
      "service_unavailable",
      "The change is committed but not yet propagated to every gateway replica; it takes effect everywhere once Redis is reachable. Do not repeat it.",
      { details: { committed: true, propagated: false } },
    );
  }
  return result as T;
}

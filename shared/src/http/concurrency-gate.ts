import { notExecuted, type Deadline } from "./deadline";
import { watchDeadline } from "./deadline-watch";

/**
 * How long a workspace counts as active after its last request arrived: long
 * enough that a caller reading one page after another stays active between
 * its requests, short enough that a workspace alone gets the whole service
 * back soon after the others stop.
 */
export const ACTIVE_WORKSPACE_MS = 1_000;

interface Waiter {
  start(): void;
  /** Stops watching the waiter's deadline. */
  unwatch?: () => void;
}

/** One workspace's requests at the gate (or the requests that name none). */
interface Tenant {
  running: number;
  waiting: Waiter[];
  seenAt: number;
  /** In the round of tenants with requests waiting. */
  queued: boolean;
}

export interface GateOptions {
  /**
   * The database connections behind the gate. While several workspaces are
   * active, each may run at most its share of them at once (at least one), so
   * that one workspace's slow queries leave the others idle connections to
   * run on; a workspace alone may use the whole gate.
   */
  connections?: number;
  clock?: () => number;
}

export type Admit = <T>(task: () => Promise<T>, deadline?: Deadline, workspace?: string) => Promise<T>;

/**
 * Lets at most `limit` tasks run at once; the others wait their turn. A
 * service admits a few requests per database connection
 * (shared/src/service/boot-service.ts): enough for queries to pipeline, few
 * enough that a request the service cannot start soon waits here. Each
 * workspace's requests wait in order, and the workspaces with requests
 * waiting take turns for the slots that free up. A task still waiting when
 * its deadline passes is dropped without running (503, not executed): its
 * caller has given up on it.
 */
export function concurrencyGate(limit: number, options: GateOptions = {}): Admit {
  const clock = options.clock ?? (() => performance.now());
  const connections = options.connections;
  let running = 0;
  /** Workspaces that ran or asked recently; idle ones are forgotten ACTIVE_WORKSPACE_MS after their last request. */
  const tenants = new Map<string, Tenant>();
  /** Requests that name no workspace: never held to a share. */
  const anonymous: Tenant = { running: 0, waiting: [], seenAt: 0, queued: false };
  /** Tenants with requests waiting, in the order they take turns. */
  const round: Tenant[] = [];
  let prunedAt = clock();

  const forgetIdle = (now: number) => {
    if (now - prunedAt < ACTIVE_WORKSPACE_MS / 2) return;
    prunedAt = now;
    for (const [workspace, tenant] of tenants) {
      if (tenant.running === 0 && tenant.waiting.length === 0 && now - tenant.seenAt > ACTIVE_WORKSPACE_MS) tenants.delete(workspace);
    }
  };
  const shareOf = (tenant: Tenant) => {
    if (tenant === anonymous || connections === undefined || tenants.size <= 1) return Infinity;
    return Math.max(1, Math.floor(connections / tenants.size));
  };
  const mayStart = (tenant: Tenant) => running < limit && tenant.running < shareOf(tenant);

  /** Hands free slots to the waiting tenants in turn, one each, skipping those at their share. */
  const startNextWaiting = () => {
    for (let skipped = 0; round.length > 0 && running < limit && skipped < round.length; ) {
      const tenant = round.shift()!;
      if (!mayStart(tenant)) {
        round.push(tenant);
        skipped++;
        continue;
      }
      skipped = 0;
      const waiter = tenant.waiting.shift()!;
      running++;
      tenant.running++;
      if (tenant.waiting.length > 0) round.push(tenant);
      else tenant.queued = false;
      waiter.unwatch?.();
      waiter.start();
    }
  };
  const release = (tenant: Tenant) => {
    running--;
    tenant.running--;
    if (round.length > 0) startNextWaiting();
  };
  const run = <T>(tenant: Tenant, task: () => Promise<T>): Promise<T> => {
    let result: Promise<T>;
    try {
      result = task();
    } catch (error) {
      release(tenant);
      return Promise.reject(error);
    }
    return result.then(
      (value) => {
        release(tenant);
        return value;
      },
      (error: unknown) => {
        release(tenant);
        throw error;
      },
    );
  };
  const tenantOf = (workspace: string | undefined, now: number): Tenant => {
    if (workspace === undefined) return anonymous;
    let tenant = tenants.get(workspace);
    if (!tenant) {
      tenant = { running: 0, waiting: [], seenAt: now, queued: false };
      tenants.set(workspace, tenant);
    }
    tenant.seenAt = now;
    return tenant;
  };

  /** With a slot free the task starts at once, without a promise of the gate's own to wait on. */
  return function admit<T>(task: () => Promise<T>, deadline?: Deadline, workspace?: string): Promise<T> {
    const now = clock();
    forgetIdle(now);
    const tenant = tenantOf(workspace, now);
    if (tenant.waiting.length === 0 && mayStart(tenant)) {
      running++;
      tenant.running++;
      return run(tenant, task);
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { start: resolve };
      // Under load most requests wait here: their deadlines share one timer instead of one each.
      if (deadline) {
        waiter.unwatch = watchDeadline(deadline.at, () => {
          tenant.waiting.splice(tenant.waiting.indexOf(waiter), 1);
          if (tenant.waiting.length === 0 && tenant.queued) {
            tenant.queued = false;
            round.splice(round.indexOf(tenant), 1);
          }
          deadline.expire();
          reject(notExecuted("The service was too busy to start the request before its deadline."));
        });
      }
      tenant.waiting.push(waiter);
      if (!tenant.queued) {
        tenant.queued = true;
        round.push(tenant);
      }
    }).then(() => run(tenant, task));
  };
}

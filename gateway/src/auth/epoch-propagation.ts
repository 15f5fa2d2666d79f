import type { Logger } from "@ws/shared";
import type { CredentialEpochs } from "./credential-epochs";

/** How long a management call waits for its epoch to reach Redis before it answers 503. */
export const PROPAGATION_WAIT_MS = 3000;
const FIRST_RETRY_MS = 50;
const MAX_RETRY_MS = 1000;

export interface EpochPropagation {
  /**
   * Publishes a committed epoch. Resolves true once Redis holds it; false when
   * it has not landed within the wait, and then keeps retrying in the
   * background until it does (or the process stops).
   */
  publish(workspaceId: string, epoch: string): Promise<boolean>;
  /** Epochs still waiting to land, per workspace. */
  readonly pending: ReadonlyMap<string, string>;
  close(): void;
}

/**
 * A committed change to what keys may do reaches every replica only through
 * the epoch in Redis: until it lands, a replica that cached a key keeps
 * trusting it. So a failed publish is retried until it lands, never dropped.
 */
export function createEpochPropagation(epochs: CredentialEpochs, options: { logger: Logger; waitMs?: number; trustMs?: number }): EpochPropagation {
  const waitMs = options.waitMs ?? PROPAGATION_WAIT_MS;
  const trustMs = options.trustMs ?? 0;
  const pending = new Map<string, string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  const landed = (workspaceId: string, epoch: string) =>
    epochs.publish(workspaceId, epoch).then(
      () => true,
      () => false,
    );

  const keepPending = (workspaceId: string, epoch: string) => {
    const waiting = pending.get(workspaceId);
    if (waiting === undefined || BigInt(epoch) > BigInt(waiting)) pending.set(workspaceId, epoch);
  };

  async function retryPending(): Promise<void> {
    timer = undefined;
    for (const [workspaceId, epoch] of [...pending]) {
      if (!(await landed(workspaceId, epoch))) continue;
      // A newer epoch may have been queued meanwhile: only this one is done.
      if (pending.get(workspaceId) === epoch) pending.delete(workspaceId);
      options.logger.info("credential epoch published after retries", { workspace_id: workspaceId, epoch });
    }
    schedule();
  }

  function schedule(): void {
    if (closed || timer || pending.size === 0) return;
    timer = setTimeout(retryPending, MAX_RETRY_MS);
  }

  return {
    async publish(workspaceId, epoch) {
      const giveUpAt = performance.now() + waitMs;
      for (let delay = FIRST_RETRY_MS; ; delay = Math.min(delay * 2, MAX_RETRY_MS)) {
        if (await landed(workspaceId, epoch)) {
          // A replica may act on an epoch for trustMs after it sent the read: once that has passed since the new epoch
          // landed, every read a replica still acts on was made after it, so the change holds for every request from here on.
          if (trustMs > 0) await new Promise((resolve) => setTimeout(resolve, trustMs));
          return true;
        }
        if (performance.now() + delay > giveUpAt) break;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
      options.logger.warn("credential epoch not published yet; retrying in the background", { workspace_id: workspaceId, epoch });
      keepPending(workspaceId, epoch);
      schedule();
      return false;
    },
    pending,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      if (pending.size) options.logger.warn("stopping with credential epochs not published", { workspaces: [...pending.keys()] });
    },
  };
}

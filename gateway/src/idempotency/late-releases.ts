import { settleWithin, type Logger } from "@ws/shared";
import type { KeyRef } from "./store";

/** How often releases that did not land are tried again. */
const RETRY_MS = 500;
/** Releases kept waiting at most; past it, a key is left to its lock, with a warning. */
const MOST_WAITING = 10_000;

/**
 * Keys to let go whose release did not reach the database (it was down, or did
 * not answer in time), or whose claim may land after the request was answered
 * 503. Each is tried again until it lands: a key left held answers its
 * retries 409 until its lock runs out (then, never sent on, it is deleted and
 * the retry runs: store.settleStale). A release lets go only the attempt's
 * own record, and only while it is unsettled, so one that lands late changes
 * nothing another attempt did.
 */
export function createLateReleases(deps: {
  release: (ref: KeyRef, attemptId: string) => Promise<void>;
  logger: Logger;
  /** How long one release may take. */
  timeoutMs: number;
  /** How long a release is tried (past it, the record has expired anyway). */
  giveUpMs: number;
}) {
  const waiting = new Map<string, { ref: KeyRef; attemptId: string; since: number }>();
  let timer: ReturnType<typeof setTimeout> | undefined;

  function schedule(): void {
    if (timer !== undefined || waiting.size === 0) return;
    timer = setTimeout(retry, RETRY_MS);
    (timer as { unref?: () => void }).unref?.();
  }

  async function retry(): Promise<void> {
    for (const [id, entry] of [...waiting]) {
      if (Date.now() - entry.since > deps.giveUpMs) {
        waiting.delete(id);
        continue;
      }
      try {
        await settleWithin(deps.release(entry.ref, entry.attemptId), deps.timeoutMs, () => new Error("release timed out"));
        waiting.delete(id);
      } catch {
        // Still unreachable: the others would fail the same way; all wait for the next round.
        break;
      }
    }
    timer = undefined;
    schedule();
  }

  return {
    add(ref: KeyRef, attemptId: string): void {
      if (waiting.size >= MOST_WAITING) {
        deps.logger.warn("idempotency key left held: too many releases waiting", { key: ref.key });
        return;
      }
      waiting.set(`${ref.apiKeyId}\n${ref.key}\n${attemptId}`, { ref, attemptId, since: Date.now() });
      schedule();
    },
    /** Waiting now (for tests and metrics). */
    size: () => waiting.size,
  };
}

import type { RunningSystem } from "./launch-system";
import type { Child } from "./processes";

export type SupervisionEvent =
  | { kind: "exited"; name: string; code: number | null; signal: string | null; restartInMs: number }
  | { kind: "restarted"; name: string; pid: number | undefined }
  | { kind: "restart-failed"; name: string; reason: string; restartInMs: number };

export interface Backoff {
  /** Wait before the first restart. */
  initialMs: number;
  /** The wait doubles on every failed attempt, up to this. */
  maxMs: number;
  /** A process that ran this long before it died starts again from the first wait. */
  stableMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1000, maxMs: 30_000, stableMs: 60_000 };

/**
 * Keeps every process of a running system up: one that exits is started again
 * after a wait that doubles while it keeps failing, the way Kubernetes restarts
 * a crashing container. Each exit and restart is reported.
 */
export function supervise(system: RunningSystem, report: (event: SupervisionEvent) => void, backoff: Backoff = DEFAULT_BACKOFF) {
  let active = true;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const attempts = new Map<string, number>();

  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (active) run();
    }, ms);
    timers.add(timer);
  };
  const nextWait = (name: string) => {
    const attempt = (attempts.get(name) ?? 0) + 1;
    attempts.set(name, attempt);
    return Math.min(backoff.initialMs * 2 ** (attempt - 1), backoff.maxMs);
  };

  const restart = (name: string) => {
    system.restart(name).then(
      (child) => {
        if (!active) return;
        report({ kind: "restarted", name, pid: child.process.pid });
        watch(child);
      },
      (error: unknown) => {
        if (!active) return;
        const wait = nextWait(name);
        report({ kind: "restart-failed", name, reason: error instanceof Error ? error.message : String(error), restartInMs: wait });
        later(wait, () => restart(name));
      },
    );
  };

  const watch = (child: Child) => {
    const startedAt = Date.now();
    child.exited.then((code) => {
      // A child replaced by a restart in progress is not this supervisor's to restart again.
      if (!active || !system.children.includes(child)) return;
      if (Date.now() - startedAt >= backoff.stableMs) attempts.delete(child.name);
      const wait = nextWait(child.name);
      report({ kind: "exited", name: child.name, code, signal: child.process.signalCode, restartInMs: wait });
      later(wait, () => restart(child.name));
    });
  };

  for (const child of system.children) watch(child);
  return {
    /** No further restarts; call before stopping the system. */
    stop() {
      active = false;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

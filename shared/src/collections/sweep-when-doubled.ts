/** Maps are swept for entries that no longer count once they hold this many. */
export const SWEEP_FROM = 1024;

/**
 * Runs `sweep` once `size()` has doubled since the last sweep (`from` at
 * least): a sweep then pays for the entries added since, however many of the
 * others still count, instead of every addition scanning them all. Whatever a
 * map holds past what still counts is thus at most as much again.
 */
export function sweepWhenDoubled(size: () => number, sweep: () => void, from = SWEEP_FROM): () => void {
  let sweepAt = from;
  return () => {
    if (size() < sweepAt) return;
    sweep();
    sweepAt = Math.max(from, 2 * size());
  };
}

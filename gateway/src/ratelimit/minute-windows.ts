import { sweepWhenDoubled } from "@ws/shared";
import { windowOf } from "./limiter";

/** Past this many ids counted in one window, ids not counted yet share one count. */
export const MAX_TRACKED_IDS = 100_000;

export type WindowEntry<Extra> = { window: number; count: number; shared: boolean } & Extra;

/**
 * Per-id counts in the current clock-minute window, in memory: the state of the
 * in-process limiters (request counts per key, failed logins per address). An
 * entry of an earlier window reads as absent, and is swept once the map has
 * doubled since its last sweep, so the map holds at most about twice the ids of
 * the windows still counting.
 *
 * A count is never started over to make room: that would give every id its
 * whole limit back, and an attacker who can make ids up (addresses) could do it
 * at will. Past `maxIds` ids counted in one window, an id not counted yet is
 * counted with the others in the same position, in one shared entry, until the
 * window ends: a shared count is higher than any of theirs, so it refuses
 * sooner, never later.
 */
export function minuteWindows<Extra extends object = {}>(fresh: () => Extra = () => ({}) as Extra, maxIds = MAX_TRACKED_IDS) {
  const entries = new Map<string, WindowEntry<Extra>>();
  /** The latest window an entry was asked for: every entry of an earlier one no longer counts. */
  let latestWindow = -Infinity;
  /** The window in which the map was found full of counting ids: none of them stops counting before it ends. */
  let fullInWindow = -Infinity;
  let overflow: WindowEntry<Extra> | undefined;

  const sweepPast = () => {
    for (const [id, entry] of entries) if (entry.window < latestWindow) entries.delete(id);
  };
  const sweepIfDoubled = sweepWhenDoubled(() => entries.size, sweepPast);
  const entryOf = (window: number, count: number, shared: boolean): WindowEntry<Extra> => ({ window, count, shared, ...fresh() }) as WindowEntry<Extra>;

  /** Whether a new id can have an entry of its own in `window`. */
  const roomIn = (window: number) => {
    latestWindow = Math.max(latestWindow, window);
    sweepIfDoubled();
    if (entries.size < maxIds) return true;
    if (fullInWindow === latestWindow) return false;
    sweepPast();
    if (entries.size < maxIds) return true;
    fullInWindow = latestWindow;
    return false;
  };
  /** The shared entry of `window`, started at `count` when it belongs to another window. */
  const sharedIn = (window: number, count: number) => {
    if (!overflow || overflow.window !== window) overflow = entryOf(window, count, true);
    return overflow;
  };

  return {
    /** The id's entry in the window of `nowSeconds`, if it has one (the shared one while the map is full). */
    peek(id: string, nowSeconds: number): WindowEntry<Extra> | undefined {
      const window = windowOf(nowSeconds);
      const entry = entries.get(id);
      if (entry?.window === window) return entry;
      return fullInWindow === window && overflow?.window === window ? overflow : undefined;
    },
    /** The id's entry in the window of `nowSeconds`, started at count 0 when it has none. */
    current(id: string, nowSeconds: number): WindowEntry<Extra> {
      const window = windowOf(nowSeconds);
      const entry = entries.get(id);
      if (entry?.window === window) return entry;
      if (entry) entries.delete(id);
      if (!roomIn(window)) return sharedIn(window, 0);
      const started = entryOf(window, 0, false);
      entries.set(id, started);
      return started;
    },
    /** Raises the id's count in `window` to at least `count`; an entry of a later window is kept as it is. */
    raise(id: string, window: number, count: number) {
      const entry = entries.get(id);
      if (entry && entry.window > window) return;
      if (entry && entry.window === window) {
        entry.count = Math.max(entry.count, count);
        return;
      }
      if (entry) entries.delete(id);
      if (roomIn(window)) entries.set(id, entryOf(window, count, false));
      else if (!overflow || overflow.window <= window) {
        const shared = sharedIn(window, count);
        shared.count = Math.max(shared.count, count);
      }
    },
    /** Entries held, counting or not (for tests). */
    size: () => entries.size,
  };
}

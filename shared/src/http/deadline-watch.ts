/**
 * One timer for every request's deadline instead of a setTimeout and a
 * clearTimeout each: requests are kept in order of their deadlines, and the
 * timer is armed for the earliest only. Budgets are nearly always the same, so
 * a new request nearly always goes last, and the one answered nearly always
 * goes from the front; neither touches the timer while others wait.
 */
interface Watch {
  at: number;
  onDeadline: () => void;
  previous: Watch | undefined;
  next: Watch | undefined;
}

let first: Watch | undefined;
let last: Watch | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;
let armedFor = Infinity;

function unlink(watch: Watch): void {
  if (watch.previous) watch.previous.next = watch.next;
  else first = watch.next;
  if (watch.next) watch.next.previous = watch.previous;
  else last = watch.previous;
  watch.previous = watch.next = undefined;
}

/** Timers may fire up to a millisecond before the instant asked for (they count whole milliseconds). */
const TIMER_GRANULARITY_MS = 1;

/**
 * A timer this late means this process did not run meanwhile (paused,
 * throttled, a long collection): what came in while it was stalled is read
 * before the deadlines are called, so an answer that arrived in time is not
 * taken for a timeout. Timers run before the sockets are read in a turn.
 */
const STALLED_MS = 10;
let stallSeen = false;

function fire(): void {
  timer = undefined;
  const now = performance.now();
  if (!stallSeen && now - armedFor > STALLED_MS) {
    stallSeen = true;
    timer = setTimeout(fire, 0);
    return;
  }
  stallSeen = false;
  armedFor = Infinity;
  while (first && first.at - now < TIMER_GRANULARITY_MS) {
    const due = first;
    unlink(due);
    due.onDeadline();
  }
  arm();
}

/** A timer that fires at or before the earliest deadline; one already due sooner stays. */
function arm(): void {
  if (!first || (timer !== undefined && armedFor <= first.at)) return;
  if (timer !== undefined) clearTimeout(timer);
  armedFor = first.at;
  timer = setTimeout(fire, Math.max(0, first.at - performance.now()));
}

/**
 * Calls `onDeadline` at `at` (a performance.now() instant), unless the
 * returned function is called first.
 */
export function watchDeadline(at: number, onDeadline: () => void): () => void {
  const watch: Watch = { at, onDeadline, previous: undefined, next: undefined };
  let after = last;
  while (after && after.at > at) after = after.previous;
  watch.previous = after;
  watch.next = after ? after.next : first;
  if (watch.next) watch.next.previous = watch;
  else last = watch;
  if (after) after.next = watch;
  else {
    first = watch;
    arm();
  }
  return () => {
    if (watch.previous === undefined && first !== watch) return;
    unlink(watch);
    // Nothing left to wait for: no timer keeps the process busy.
    if (!first && timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
      armedFor = Infinity;
      stallSeen = false;
    }
  };
}

/**
 * Settles like `promise`, or rejects with `late()` once `ms` have passed,
 * whichever comes first (every such bound on the one shared timer). What
 * `promise` stands for goes on: a caller that must undo it when it lands late
 * waits for `promise` itself.
 */
export function settleWithin<T>(promise: Promise<T>, ms: number, late: () => unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const unwatch = watchDeadline(performance.now() + ms, () => reject(late()));
    promise.then(
      (value) => {
        unwatch();
        resolve(value);
      },
      (error: unknown) => {
        unwatch();
        reject(error);
      },
    );
  });
}

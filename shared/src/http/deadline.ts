import { ApiError } from "../errors/api-error";

/**
 * The gateway tells a service how long it may spend on a request: milliseconds,
 * counted from when the request reaches the service (a duration, not a clock
 * time, so the hosts' clocks need not agree).
 */
export const DEADLINE_HEADER = "x-request-budget-ms";

/** Used when a request carries no budget (only the gateway calls services; this bounds anything else). */
export const DEFAULT_BUDGET_MS = 9_000;
const MAX_BUDGET_MS = 600_000;

/**
 * The budget the gateway gives a service for its own upstream timeout: a fifth
 * less (at most a second), so that the service's answer, and a commit that
 * started just before the deadline, arrive before the gateway gives up.
 */
export function serviceBudgetMs(upstreamTimeoutMs: number): number {
  return Math.max(1, Math.floor(upstreamTimeoutMs - Math.min(1000, upstreamTimeoutMs / 5)));
}

/** A failure answer that promises the request did not and will not take effect. */
export function notExecuted(message: string, cause?: unknown): ApiError {
  return new ApiError("service_unavailable", `${message} The request was not executed; it is safe to retry.`, { headers: { "retry-after": "1" }, cause });
}

/**
 * An answer whose request may or may not have taken effect (a service that got
 * it and never answered, a commit whose result never came back) is a 502
 * `service_unavailable` with `details.outcome: "unknown"`; a 503 means not
 * executed. A client must not repeat it blindly, and an Idempotency-Key that
 * ended this way keeps it.
 */
export const OUTCOME_UNKNOWN_STATUS = 502;
export const OUTCOME_UNKNOWN_DETAILS = { outcome: "unknown" } as const;

/** The answer when a request reached its service, or a commit was sent, but the result never came back. */
export function outcomeUnknown(message: string, options: { headers?: Record<string, string>; cause?: unknown } = {}): ApiError {
  return new ApiError("service_unavailable", `${message} The request may or may not have taken effect; check before repeating it.`, {
    status: OUTCOME_UNKNOWN_STATUS,
    details: OUTCOME_UNKNOWN_DETAILS,
    ...options,
  });
}

/**
 * One request's deadline at a service. Work checks it before it starts and
 * before it commits; the request is answered "not executed" at the deadline
 * unless a commit has begun. Whichever of the two comes first wins, so a
 * request answered "not executed" can never commit afterwards.
 */
export class Deadline {
  #state: "open" | "committing" | "expired" = "open";

  constructor(readonly at: number) {}

  static in(ms: number): Deadline {
    return new Deadline(performance.now() + ms);
  }

  remainingMs(): number {
    return Math.max(0, this.at - performance.now());
  }

  /** A commit has begun: the request is answered by its work, however long that takes. */
  get committing(): boolean {
    return this.#state === "committing";
  }

  get expired(): boolean {
    if (this.#state === "open" && this.remainingMs() <= 0) this.#state = "expired";
    return this.#state === "expired";
  }

  /** Throws "not executed" once the deadline has passed (and no commit began). */
  assertTimeLeft(): void {
    if (this.expired) throw notExecuted("The request was not completed before its deadline.");
  }

  /** Right before COMMIT: true, and no expiry can answer for the request any more; false when the deadline passed first. */
  beginCommit(): boolean {
    if (this.expired) return false;
    this.#state = "committing";
    return true;
  }

  /** At the deadline: true when the request may be answered "not executed" (no commit began), and from now on none can. */
  expire(): boolean {
    if (this.#state === "committing") return false;
    this.#state = "expired";
    return true;
  }
}

const deadlines = new WeakMap<Request, Deadline>();

/** Gives the request a deadline `ms` from now, whatever budget its headers carry: for a server that sets its own. */
export function setDeadlineIn(request: Request, ms: number): Deadline {
  const deadline = Deadline.in(ms);
  deadlines.set(request, deadline);
  return deadline;
}

/** The request's deadline, counted from the first call for it (made when it arrives). */
export function deadlineOf(request: Request): Deadline {
  let deadline = deadlines.get(request);
  if (!deadline) {
    const given = Number(request.headers.get(DEADLINE_HEADER));
    const budget = Number.isFinite(given) && given > 0 ? Math.min(given, MAX_BUDGET_MS) : DEFAULT_BUDGET_MS;
    deadline = Deadline.in(budget);
    deadlines.set(request, deadline);
  }
  return deadline;
}

import { ANSWER_GIVEN_UP_COUNTS_MS } from "@ws/shared";

/** Workspaces remembered at once: past it the oldest marks go first (a mark costs its holder, never others). */
const MOST_WORKSPACES = 10_000;

/**
 * Workspaces whose clients gave up a service's answer before they had all of
 * it, at this gateway, and when. A service sees an answer given up only while
 * some of it is still in the service: up to 15 MiB of an unread answer fits in
 * the sockets' buffers between it and the client, and the service then counts
 * it as sent. The gateway sees the client go, and tells the service in the
 * principal of the workspace's next requests, for ANSWER_GIVEN_UP_COUNTS_MS.
 */
export class GivenUpAnswers {
  private readonly marks = new Map<string, number>();

  constructor(private readonly countsMs = ANSWER_GIVEN_UP_COUNTS_MS) {}

  /** A client of `workspaceId` gave up an answer now. */
  mark(workspaceId: string): void {
    // Deleted first, so the map stays in the order of the marks: the oldest are dropped first.
    this.marks.delete(workspaceId);
    this.marks.set(workspaceId, Date.now());
    if (this.marks.size > MOST_WORKSPACES) this.marks.delete(this.marks.keys().next().value!);
  }

  /** How long ago a client of `workspaceId` gave up an answer, while that still counts. */
  msAgo(workspaceId: string): number | undefined {
    if (this.marks.size === 0) return undefined;
    const at = this.marks.get(workspaceId);
    if (at === undefined) return undefined;
    const ago = Date.now() - at;
    if (ago < this.countsMs) return ago;
    this.marks.delete(workspaceId);
    return undefined;
  }
}

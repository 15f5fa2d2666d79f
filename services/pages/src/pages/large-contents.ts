import { ApiError, createBodyBudget, type BodyLease, type Sql } from "@ws/shared";
import { pageContents, withContent, type ListedPage, type PageRow } from "./repository";

const MiB = 1024 * 1024;

/**
 * A list answer holds its pages several times over while it is made (the text
 * read from the database, the JSON, the bytes sent), and a page's content may be
 * 10 MiB: a hundred of them in one answer, or a few such answers at once, would
 * take gigabytes, and so would many answers of one large page at once. So
 * contents larger than LISTED_CONTENT_MAX_BYTES (repository.ts) are read only
 * within a budget of the whole process, held until the answer has been sent
 * (the gateway reads it only as fast as its client does), of which one
 * workspace holds at most half: past the budget a read is refused (503, or 429
 * for the workspace's share, with Retry-After) instead of made, and the other
 * workspaces' answers still have room.
 */
export const LARGE_CONTENTS_BYTES = 32 * MiB;
/** One workspace's share, and so also the most one answer may carry. */
export const LARGE_CONTENTS_PER_WORKSPACE_BYTES = LARGE_CONTENTS_BYTES / 2;

const budget = createBodyBudget({
  totalBytes: LARGE_CONTENTS_BYTES,
  perKeyBytes: LARGE_CONTENTS_PER_WORKSPACE_BYTES,
  holder: "workspace",
  items: { noun: "large page contents", reason: "list_answers_in_transit" },
});

/**
 * Room in the budget for one answer of the workspace, held until that answer
 * has been sent. Only an answer that takes room is held: the others go out as
 * they are made.
 */
export function largeContentsLease(workspaceId: string, holdUntilAnswered: (release: () => void) => void): BodyLease {
  const lease = budget.lease(workspaceId);
  let held = false;
  return {
    take(bytes) {
      lease.take(bytes);
      if (held || bytes <= 0) return;
      held = true;
      holdUntilAnswered(() => lease.release());
    },
    hold: (bytes) => lease.hold(bytes),
    release: () => lease.release(),
  };
}

/** More content than one answer may carry: the per_page that would carry these pages' first ones. */
function tooMuchContent(rows: ListedPage[]): ApiError {
  let bytes = 0;
  let fitting = 0;
  for (const row of rows) {
    if (row.content === null) bytes += row.content_bytes;
    if (bytes > LARGE_CONTENTS_PER_WORKSPACE_BYTES) break;
    fitting++;
  }
  const max = Math.max(1, fitting);
  return ApiError.invalid("validation_error", [
    {
      field: "per_page",
      rule: "range",
      message: `per_page must be at most ${max} for these pages: their content is more than one answer carries (${LARGE_CONTENTS_PER_WORKSPACE_BYTES / MiB} MiB)`,
      allowed: { min: 1, max },
    },
  ]);
}

/** The rows as pages: the large contents read, once the lease has taken room for them. */
export async function withLargeContents(sql: Sql, workspaceId: string, rows: ListedPage[], lease: BodyLease): Promise<PageRow[]> {
  const large = rows.filter((row) => row.content === null);
  let contents: Map<string, string> | undefined;
  if (large.length > 0) {
    const bytes = large.reduce((sum, row) => sum + row.content_bytes, 0);
    if (bytes > LARGE_CONTENTS_PER_WORKSPACE_BYTES) throw tooMuchContent(rows);
    lease.take(bytes);
    contents = await pageContents(sql, workspaceId, large.map((row) => row.id));
  }
  return rows.map((row) => withContent(row, row.content ?? contents?.get(row.id) ?? ""));
}


import { ANSWER_GIVEN_UP_COUNTS_MS, PUBLIC_SERVICES, StreamedJson, SERVICE_ANSWER_IN_MEMORY_MAX_BYTES, createBodyBudget, type AnswerHold, type BodyLease, type PageList, type Principal, type Sql } from "@ws/shared";
import { LISTED_CONTENT_MAX_BYTES, findPage, pageContents, withContent, type ListedPage, type PageRow } from "./repository";

/**
 * A list answer holds its pages several times over while it is made (the text
 * read from the database, the JSON, the bytes sent), and a page's content may be
 * 10 MiB: a hundred of them in one answer, or a few such answers at once, would
 * take gigabytes, and so would many answers of one large page at once; a hundred
 * pages of 64 KiB make a 6.4 MiB answer, and many of those too. So an answer
 * whose contents together take over LISTED_CONTENT_MAX_BYTES (repository.ts)
 * is made only within a budget of the whole process, for all its contents
 * (counted as they go out, escaped as JSON: a control character takes 6 bytes),
 * held until the answer has been sent (the gateway reads it only as fast as its
 * client does), of which one workspace holds at most half: past the budget a
 * read is refused (503, or 429 for the workspace's share, with Retry-After)
 * instead of made, and the other workspaces' answers still have room.
 */
export const LARGE_CONTENTS_BYTES = 2 * SERVICE_ANSWER_IN_MEMORY_MAX_BYTES;
/** One workspace's share, and so also the most one answer made whole may carry. */
export const LARGE_CONTENTS_PER_WORKSPACE_BYTES = SERVICE_ANSWER_IN_MEMORY_MAX_BYTES;
/**
 * What a workspace already holding room must leave free: the largest content
 * one page can have (its create or update body's limit). Two workspaces within
 * their shares would otherwise fill the budget while each holds room, and a
 * third could read none of its large pages (429 goes to them instead). Two
 * that ask again only once their answers have left are newcomers at each ask;
 * what keeps them from filling it for as long as they keep reading is the
 * place in line a refused workspace keeps (PLACE_KEPT_MS).
 */
export const LARGE_CONTENTS_KEPT_FREE_BYTES = PUBLIC_SERVICES.pages.maxBodyBytes;

/**
 * How long a workspace refused for the whole budget keeps its place in line
 * after its last ask: three times the Retry-After it is told (1 s), so a client
 * that retries as told keeps it, and one that went away gives it up soon. The
 * place holds others back from the workspace's first retry on: an ask refused
 * at least PLACE_CLAIMED_AFTER_MS after the first (two asks sent at once are
 * not a retry).
 */
export const PLACE_KEPT_MS = 3_000;

/** Half the Retry-After (1 s): a client retrying as told comes back later than this, a doubled ask sooner. */
export const PLACE_CLAIMED_AFTER_MS = 500;

/**
 * How long an answer of a workspace that gave one up in the last 30 s may take
 * nothing before it gives way to another workspace's read the budget cannot
 * cover: half the Retry-After (1 s), so a read refused at its ask finds that
 * answer cut at its retry. Two workspaces renewing unread 15 MiB lists every
 * 7 s hold the budget together whenever one's mark has ended (it does while
 * the workspace is refused); without this a third workspace's read was refused
 * at its ask and its retry, for up to 7 s each time (2 to 3 reads of 150 in
 * runs of two minutes). The price: a workspace whose client gave up an answer, reading its
 * next one in bursts, may see it cut while the budget is full.
 */
export const GIVEN_UP_STALL_MS = 500;

/*
 * A workspace that gave up an answer before it went out whole still counts as
 * holding room for ANSWER_GIVEN_UP_COUNTS_MS (30 s), so must leave
 * LARGE_CONTENTS_KEPT_FREE_BYTES free: two workspaces asking for 15 MiB lists,
 * reading nothing and asking again every 0.8 s (answers too young to be cut)
 * were newcomers at every ask and kept a third workspace's retries 503, 16
 * times in 16. An answer can leave this process whole and still go unread: up
 * to 15 MiB of it fits in the sockets' buffers between here and the client.
 * The gateway sees that client go, and says so in the principal
 * (`answer_given_up_ms_ago`). The price: an honest workspace whose client gave
 * up an answer (it timed out) is refused its large reads for up to 30 s while
 * others hold more than the budget less 10 MiB and its read.
 */
const budget = createBodyBudget({
  totalBytes: LARGE_CONTENTS_BYTES,
  perKeyBytes: LARGE_CONTENTS_PER_WORKSPACE_BYTES,
  holder: "workspace",
  items: { noun: "large page contents", reason: "list_answers_in_transit" },
  keepFreeForNewHolders: LARGE_CONTENTS_KEPT_FREE_BYTES,
  abandonedCountsMs: ANSWER_GIVEN_UP_COUNTS_MS,
  givenUpStallMs: GIVEN_UP_STALL_MS,
  placeKeptMs: PLACE_KEPT_MS,
  cameBackAfterMs: PLACE_CLAIMED_AFTER_MS,
});

/** Bytes of large contents held by answers being made or sent now. */
export function largeContentsInTransit(): number {
  return budget.inUse();
}

/**
 * Room in the budget for one answer of the principal's workspace, held until
 * that answer has been sent. Only an answer that takes room is held: the
 * others go out as they are made.
 */
export function largeContentsLease(principal: Principal, holdUntilAnswered: (hold: AnswerHold) => void): BodyLease {
  const workspaceId = principal.workspace_id;
  if (principal.answer_given_up_ms_ago !== undefined) budget.givenUp(workspaceId, Date.now() - principal.answer_given_up_ms_ago);
  const lease = budget.lease(workspaceId);
  let held = false;
  // The budget's lease itself, but the first take that holds room also hands it to the answer.
  return {
    ...lease,
    take(bytes) {
      lease.take(bytes);
      if (held || bytes <= 0) return;
      held = true;
      holdUntilAnswered(lease);
    },
  };
}

/** What the rows' contents take in an answer, together. */
export function contentBytes(rows: ListedPage[]): number {
  let bytes = 0;
  for (const row of rows) bytes += row.content_json_bytes;
  return bytes;
}

/** Contents of LISTED_CONTENT_MAX_BYTES or less in all came with the rows and go out as they are: no room, no hold. */
export const carriesLargeContents = (rows: ListedPage[]): boolean => contentBytes(rows) > LISTED_CONTENT_MAX_BYTES;

/**
 * The pages of a list that carries large contents, once the lease has room
 * for them. Up to one answer's worth (LARGE_CONTENTS_PER_WORKSPACE_BYTES) the
 * lease takes room for every content, the small ones too, and the large ones
 * are read at once, in the list's snapshot (`tx`). Past it (up to 100 pages of
 * 10 MiB) the lease takes the workspace's whole share, and each large content
 * is read only when its turn comes to be written, after the snapshot (`sql`):
 * a page changed meanwhile is written as it is then, one deleted meanwhile is
 * left out. So a workspace has one such list going out at a time.
 */
export async function largeListPages(tx: Sql, sql: Sql, workspaceId: string, rows: ListedPage[], lease: BodyLease): Promise<Iterable<PageRow> | AsyncIterable<PageRow>> {
  const bytes = contentBytes(rows);
  if (bytes > LARGE_CONTENTS_PER_WORKSPACE_BYTES) {
    lease.take(LARGE_CONTENTS_PER_WORKSPACE_BYTES);
    return pagesAsTheirTurnComes(sql, workspaceId, rows);
  }
  lease.take(bytes);
  const large = rows.filter((row) => row.content === null);
  const contents = large.length > 0 ? await pageContents(tx, workspaceId, large.map((row) => row.id)) : undefined;
  return rows.map((row) => withContent(row, row.content ?? contents?.get(row.id) ?? ""));
}

async function* pagesAsTheirTurnComes(sql: Sql, workspaceId: string, rows: ListedPage[]): AsyncGenerator<PageRow> {
  for (const row of rows) {
    const page = row.content !== null ? withContent(row, row.content) : await findPage(sql, workspaceId, row.id);
    if (page !== undefined) yield page;
  }
}

const utf8 = new TextEncoder();

/** How much of a content is escaped and encoded at a time: a 10 MiB content is never copied whole twice more. */
const CONTENT_PIECE_CHARS = 1024 * 1024;

/**
 * The page as JSON, in pieces: its content escaped a piece at a time. A piece
 * never ends between the two halves of a surrogate pair, so each is escaped
 * as JSON.stringify escapes the whole.
 */
export function* pageJson(page: PageRow): Generator<string> {
  const head = JSON.stringify({ ...page, content: "" });
  const at = head.indexOf('"content":""') + '"content":"'.length;
  yield head.slice(0, at);
  const { content } = page;
  for (let start = 0; start < content.length; ) {
    let end = Math.min(start + CONTENT_PIECE_CHARS, content.length);
    const last = content.charCodeAt(end - 1);
    if (end < content.length && last >= 0xd800 && last <= 0xdbff) end--;
    yield JSON.stringify(content.slice(start, end)).slice(1, -1);
    start = end;
  }
  yield head.slice(at);
}

/**
 * JSON written a piece at a time, each only once the last has been taken: an
 * answer with large contents is never made whole as one string and one byte
 * array beside its contents (each a copy of them, twice for text outside
 * Latin-1). A 360 MiB list written so put the process at 251-261 MB, against
 * 328 MB when each page was one string.
 */
function streamed(pieces: AsyncGenerator<string> | Generator<string>, about?: object): StreamedJson {
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await pieces.next();
        if (next.done) controller.close();
        else controller.enqueue(utf8.encode(next.value));
      },
      cancel() {
        void pieces.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return new StreamedJson(body, about);
}

/** One page with large content, as its answer. */
export function streamedPage(page: PageRow): StreamedJson {
  return streamed(pageJson(page), page);
}

/** A list carrying large contents, as its answer: the envelope around its pages. */
export function streamedList(pages: Iterable<PageRow> | AsyncIterable<PageRow>, envelope: Omit<PageList, "data">): StreamedJson {
  return streamed(
    (async function* () {
      yield '{"data":[';
      let first = true;
      for await (const page of pages) {
        if (!first) yield ",";
        first = false;
        yield* pageJson(page);
      }
      yield `],"total":${envelope.total},"page":${envelope.page},"per_page":${envelope.per_page}}`;
    })(),
  );
}

import {
  ApiError,
  assertCanAccess,
  isStorableText,
  isUuid,
  listVisibility,
  preconditionFailed,
  readList,
  requiredVersions,
  resolvePaging,
  resolveCreateTeam,
  uuidv7,
  writeWithin,
  type AnswerHold,
  type CreatePageBody,
  type Deadline,
  type Page,
  type PageList,
  type PageListQuery,
  type Pool,
  type Principal,
  type StreamedJson,
  type UpdatePageBody,
} from "@ws/shared";
import * as pages from "./repository";
import { carriesLargeContents, largeContentsLease, largeListPages, streamedList, streamedPage } from "./large-contents";

const WHAT = "The page";

function assertStorable(fields: Record<string, string | undefined>): void {
  const bad = Object.entries(fields)
    .filter(([, value]) => value !== undefined && !isStorableText(value))
    .map(([name]) => name);
  if (bad.length) throw ApiError.validation(bad, `${bad.join(" and ")} must be valid Unicode text without NUL characters.`, "text");
}

function notFound(): ApiError {
  return ApiError.notFound(`${WHAT} does not exist.`);
}

/**
 * Malformed, unknown or hidden ids are 404; a page outside the key's teams is
 * 403. `find` reads the page, or only locks its row (without its content) for
 * an update or delete.
 */
async function visiblePage<T extends { team_id: string | null }>(
  principal: Principal,
  id: string,
  find: (workspaceId: string, id: string) => Promise<T | undefined>,
): Promise<T> {
  if (!isUuid(id)) throw notFound();
  const page = await find(principal.workspace_id, id);
  if (!page) throw notFound();
  assertCanAccess(principal, page.team_id, WHAT);
  return page;
}

export async function createPage(sql: Pool, principal: Principal, body: CreatePageBody, deadline: Deadline): Promise<Page> {
  assertStorable({ title: body.title, content: body.content });
  const teamId = resolveCreateTeam(principal, body.team_id);
  return writeWithin(sql, deadline, (tx) =>
    pages.insertPage(tx, {
      id: uuidv7(),
      workspaceId: principal.workspace_id,
      teamId,
      title: body.title,
      content: body.content ?? "",
    }),
  );
}

/** A page whose content is large is read whole only once the answer has room for it, and goes out a piece at a time (large-contents.ts). */
export async function getPage(sql: Pool, principal: Principal, id: string, holdUntilAnswered: (hold: AnswerHold) => void): Promise<Page | StreamedJson> {
  const listed = await visiblePage(principal, id, (workspaceId, pageId) => pages.findListedPage(sql, workspaceId, pageId));
  if (listed.content !== null) return pages.withContent(listed, listed.content);
  largeContentsLease(principal, holdUntilAnswered).take(listed.content_json_bytes);
  return streamedPage(await visiblePage(principal, id, (workspaceId, pageId) => pages.findPage(sql, workspaceId, pageId)));
}

/**
 * The page is locked while access is checked, so the version condition in the
 * update's own statement is all that can fail after it: a 412.
 */
export async function updatePage(sql: Pool, principal: Principal, id: string, body: UpdatePageBody, deadline: Deadline, ifMatch?: string): Promise<Page> {
  if (body.title === undefined && body.content === undefined) {
    throw ApiError.validation(["title", "content"], "Send at least one of title and content.", "at_least_one");
  }
  assertStorable({ title: body.title, content: body.content });
  return writeWithin(sql, deadline, async (tx) => {
    await visiblePage(principal, id, (workspaceId, pageId) => pages.lockPage(tx, workspaceId, pageId));
    const page = await pages.updatePage(tx, principal.workspace_id, id, { title: body.title, content: body.content }, requiredVersions(ifMatch, id));
    if (!page) throw preconditionFailed(WHAT);
    return page;
  });
}

export async function deletePage(sql: Pool, principal: Principal, id: string, deadline: Deadline, ifMatch?: string): Promise<void> {
  await writeWithin(sql, deadline, async (tx) => {
    await visiblePage(principal, id, (workspaceId, pageId) => pages.lockPage(tx, workspaceId, pageId));
    if (!(await pages.deletePage(tx, principal.workspace_id, id, requiredVersions(ifMatch, id)))) throw preconditionFailed(WHAT);
  });
}

/** A list whose contents take more than 64 KiB goes out a piece at a time, within the budget for large contents (large-contents.ts). */
export async function listPages(
  sql: Pool,
  principal: Principal,
  query: PageListQuery,
  holdUntilAnswered: (hold: AnswerHold) => void,
): Promise<PageList | StreamedJson> {
  const paging = resolvePaging(query, "validation_error");
  const visibility = listVisibility(principal);
  // No stored title holds a NUL, and Postgres refuses one in a parameter.
  const nothing = (query.title !== undefined && query.title.includes("\u0000")) || (!visibility.includeWorkspaceLevel && visibility.teamIds.length === 0);
  if (nothing) return { data: [], total: 0, page: paging.page, per_page: paging.perPage };
  const filter = { workspaceId: principal.workspace_id, ...visibility, title: query.title };
  const order = { sort: query.sort ?? "updated_at", order: query.order ?? "desc" } as const;
  const lease = largeContentsLease(principal, holdUntilAnswered);
  let large: Iterable<Page> | AsyncIterable<Page> | undefined;
  const list = await readList(sql, paging, {
    count: (tx) => pages.countPages(tx, filter),
    rows: async (tx, limit, offset) => {
      const rows = await pages.listPages(tx, filter, { ...order, limit, offset });
      if (!carriesLargeContents(rows)) return rows.map((row) => pages.withContent(row, row.content ?? ""));
      large = await largeListPages(tx, sql, principal.workspace_id, rows, lease);
      return [];
    },
  });
  return large ? streamedList(large, list) : list;
}

/** The workspace was deleted: its pages go with it. */
export async function purgeWorkspace(sql: Pool, workspaceId: string): Promise<{ pages: number }> {
  return sql.begin(async (tx) => ({ pages: await pages.deleteWorkspacePages(tx, workspaceId) }));
}

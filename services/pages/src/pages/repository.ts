import { versionCondition, type Page, type PageSort, type SortOrder, type Sql } from "@ws/shared";

/** The one module that reads and writes the pages table. */

export type PageRow = Page;

/** Microseconds, always six digits, in UTC with Z: two updates in one millisecond still compare in order as strings. */
const TIMESTAMPS = `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at,
  to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as updated_at`;
const COLUMNS = `id, team_id, title, content, ${TIMESTAMPS}`;
/** Content the caller has just written is not read back: up to 10 MiB less to receive, decode and hold. */
const COLUMNS_BUT_CONTENT = `id, team_id, title, ${TIMESTAMPS}`;
/** The page with this content: its fields in the order the API answers them. */
export const withContent = (row: Omit<PageRow, "content">, content: string): PageRow => ({
  id: row.id,
  team_id: row.team_id,
  title: row.title,
  content,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export async function insertPage(
  sql: Sql,
  page: { id: string; workspaceId: string; teamId: string | null; title: string; content: string },
): Promise<PageRow> {
  const [row] = await sql<Omit<PageRow, "content">[]>`
    insert into pages (id, workspace_id, team_id, title, content, created_at, updated_at)
    values (${page.id}, ${page.workspaceId}, ${page.teamId}, ${page.title}, ${page.content}, now(), now())
    returning ${sql.unsafe(COLUMNS_BUT_CONTENT)}`;
  return withContent(row!, page.content);
}

/** The page as a list has it: its content only when that is no larger than LISTED_CONTENT_MAX_BYTES. */
export async function findListedPage(sql: Sql, workspaceId: string, id: string): Promise<ListedPage | undefined> {
  const [row] = await sql<ListedPage[]>`
    select ${sql.unsafe(LISTED_COLUMNS)} from pages
    where workspace_id = ${workspaceId} and id = ${id}`;
  return row;
}

export async function findPage(sql: Sql, workspaceId: string, id: string): Promise<PageRow | undefined> {
  const [row] = await sql<PageRow[]>`
    select ${sql.unsafe(COLUMNS)} from pages
    where workspace_id = ${workspaceId} and id = ${id}`;
  return row;
}

/**
 * Locks the page for a change and gives its team, so that the access check and
 * the write see the same row; the content, which may be megabytes, is not read.
 */
export async function lockPage(sql: Sql, workspaceId: string, id: string): Promise<Pick<PageRow, "id" | "team_id"> | undefined> {
  const [row] = await sql<Pick<PageRow, "id" | "team_id">[]>`
    select id, team_id from pages
    where workspace_id = ${workspaceId} and id = ${id}
    for update`;
  return row;
}

/**
 * Omitted fields keep their values. updated_at moves past the stored value even
 * when now() has not (same microsecond, or a transaction that started earlier).
 * Undefined when the page is gone or not at an accepted version.
 */
export async function updatePage(
  sql: Sql,
  workspaceId: string,
  id: string,
  changes: { title?: string; content?: string },
  versions?: string[],
): Promise<PageRow | undefined> {
  const [row] = await sql<PageRow[]>`
    update pages set
      title = coalesce(${changes.title ?? null}::text, title),
      ${changes.content === undefined ? sql`` : sql`content = ${changes.content},`}
      updated_at = greatest(clock_timestamp(), updated_at + interval '1 microsecond')
    where workspace_id = ${workspaceId} and id = ${id} ${versionCondition(sql, versions)}
    returning ${sql.unsafe(changes.content === undefined ? COLUMNS : COLUMNS_BUT_CONTENT)}`;
  return row && changes.content !== undefined ? withContent(row, changes.content) : row;
}

/** False when the page is gone or not at an accepted version. */
export async function deletePage(sql: Sql, workspaceId: string, id: string, versions?: string[]): Promise<boolean> {
  const result = await sql`delete from pages where workspace_id = ${workspaceId} and id = ${id} ${versionCondition(sql, versions)}`;
  return result.count > 0;
}

export interface PageListFilter {
  workspaceId: string;
  teamIds: string[];
  includeWorkspaceLevel: boolean;
  /** Case-insensitive substring of the title, taken literally. */
  title?: string;
}

/** LIKE's wildcards and its escape character, made literal. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/**
 * Qualified with the table: a bare updated_at would sort by the formatted text
 * column of the select list, which no index can serve.
 */
const SORT_EXPRESSIONS: Record<PageSort, string> = {
  updated_at: "pages.updated_at",
  created_at: "pages.created_at",
  title: "lower(pages.title)",
};

function where(sql: Sql, filter: PageListFilter) {
  const teamIds = `{${filter.teamIds.join(",")}}`;
  const visible = filter.includeWorkspaceLevel
    ? sql`(team_id is null or team_id = any(${teamIds}::uuid[]))`
    : sql`team_id = any(${teamIds}::uuid[])`;
  const title = filter.title === undefined ? sql`` : sql`and lower(title) like '%' || lower(${escapeLike(filter.title)}) || '%'`;
  return sql`where workspace_id = ${filter.workspaceId} and ${visible} ${title}`;
}

/** Contents up to this size come with a list's rows; a larger one is read only once the answer has room for it (pageContents). */
export const LISTED_CONTENT_MAX_BYTES = 64 * 1024;

/**
 * A row of a list: its content, or, when that takes more than
 * LISTED_CONTENT_MAX_BYTES in the answer, null; and what it takes there (its
 * JSON, migration 003).
 */
export type ListedPage = Omit<PageRow, "content"> & { content: string | null; content_json_bytes: number };
const LISTED_COLUMNS = `id, team_id, title, ${TIMESTAMPS}, content_json_bytes,
  case when content_json_bytes <= ${LISTED_CONTENT_MAX_BYTES} then content end as content`;

export async function listPages(
  sql: Sql,
  filter: PageListFilter,
  options: { sort: PageSort; order: SortOrder; limit: number; offset: number },
): Promise<ListedPage[]> {
  const direction = options.order === "asc" ? "asc" : "desc";
  const orderBy = sql.unsafe(`${SORT_EXPRESSIONS[options.sort]} ${direction}, pages.id ${direction}`);
  return sql<ListedPage[]>`
    select ${sql.unsafe(LISTED_COLUMNS)} from pages
    ${where(sql, filter)}
    order by ${orderBy}
    limit ${options.limit} offset ${options.offset}`;
}

/** The contents of these pages of the workspace, by id. */
export async function pageContents(sql: Sql, workspaceId: string, ids: string[]): Promise<Map<string, string>> {
  const rows = await sql<{ id: string; content: string }[]>`
    select id, content from pages
    where workspace_id = ${workspaceId} and id = any(${`{${ids.join(",")}}`}::uuid[])`;
  return new Map(rows.map((row) => [row.id, row.content]));
}

/** The nil UUID stands for workspace level in page_counts (migration 002). */
const WORKSPACE_LEVEL = "00000000-0000-0000-0000-000000000000";

/** Exact: from the trigger-kept counts without a filter, by counting matches with one. */
export async function countPages(sql: Sql, filter: PageListFilter): Promise<number> {
  if (filter.title !== undefined) {
    const [row] = await sql<{ total: string }[]>`select count(*) as total from pages ${where(sql, filter)}`;
    return Number(row!.total);
  }
  const teamKeys = `{${[...filter.teamIds, ...(filter.includeWorkspaceLevel ? [WORKSPACE_LEVEL] : [])].join(",")}}`;
  const [row] = await sql<{ total: string }[]>`
    select coalesce(sum(count), 0) as total from page_counts
    where workspace_id = ${filter.workspaceId} and team_key = any(${teamKeys}::uuid[])`;
  return Number(row!.total);
}

/** Every page of the workspace, and its counts, gone; how many pages there were. */
export async function deleteWorkspacePages(sql: Sql, workspaceId: string): Promise<number> {
  const result = await sql`delete from pages where workspace_id = ${workspaceId}`;
  await sql`delete from page_counts where workspace_id = ${workspaceId}`;
  return result.count;
}

import {
  ApiError,
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
  assertCanAccess,
  isUuid,
  listVisibility,
  resolveCreateTeam,
  uuidv7,
  type CreatePageBody,
  type Page,
  type PageList,
  type PageListQuery,
  type Pool,
  type Principal,
  type UpdatePageBody,
} from "@ws/shared";
import * as pages from "./repository";

const WHAT = "The page";

/** A NUL or a lone surrogate cannot be stored as Postgres text, nor read back as the same string. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

function assertStorable(fields: Record<string, string | undefined>): void {
  const bad = Object.entries(fields)
    .filter(([, value]) => value !== undefined && !isStorableText(value))
    .map(([name]) => name);
  if (bad.length) throw ApiError.validation(bad, `${bad.join(" and ")} must be valid Unicode text without NUL characters.`);
}

function notFound(): ApiError {
  return ApiError.notFound(`${WHAT} does not exist.`);
}

/** The pages use cases. Each takes the caller's principal; the route schemas have already checked shapes. */
export function pageService(sql: Pool) {
  /** Contract 2 and 6: malformed, unknown or hidden ids are 404; outside the key's teams 403. */
  async function visiblePage(db: Parameters<typeof pages.findPage>[0], principal: Principal, id: string, forUpdate: boolean) {
    if (!isUuid(id)) throw notFound();
    const page = await pages.findPage(db, principal.workspace_id, id, forUpdate);
    if (!page) throw notFound();
    assertCanAccess(principal, page.team_id, WHAT);
    return page;
  }

  return {
    async create(principal: Principal, body: CreatePageBody): Promise<Page> {
      assertStorable({ title: body.title, content: body.content });
      const teamId = resolveCreateTeam(principal, body.team_id);
      return pages.insertPage(sql, {
        id: uuidv7(),
        workspaceId: principal.workspace_id,
        teamId,
        title: body.title,
        content: body.content ?? "",
      });
    },

    get(principal: Principal, id: string): Promise<Page> {
      return visiblePage(sql, principal, id, false);
    },

    async update(principal: Principal, id: string, body: UpdatePageBody): Promise<Page> {
      if (body.title === undefined && body.content === undefined) {
        throw ApiError.validation(["title", "content"], "Send at least one of title and content.");
      }
      assertStorable({ title: body.title, content: body.content });
      return sql.begin(async (tx) => {
        await visiblePage(tx, principal, id, true);
        const page = await pages.updatePage(tx, principal.workspace_id, id, { title: body.title, content: body.content });
        if (!page) throw notFound();
        return page;
      });
    },

    async remove(principal: Principal, id: string): Promise<void> {
      await sql.begin(async (tx) => {
        await visiblePage(tx, principal, id, true);
        await pages.deletePage(tx, principal.workspace_id, id);
      });
    },

    async list(principal: Principal, query: PageListQuery): Promise<PageList> {
      const tooSmall = (["page", "per_page"] as const).filter((name) => query[name] !== undefined && query[name] < 1);
      if (tooSmall.length) throw ApiError.validation(tooSmall, `${tooSmall.join(" and ")} must be at least 1.`);
      const page = query.page ?? 1;
      const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
      const visibility = listVisibility(principal);
      const empty = { data: [], total: 0, page, per_page: perPage };
      // No stored title holds a NUL, and Postgres refuses one in a parameter.
      if (query.title !== undefined && query.title.includes("\u0000")) return empty;
      if (!visibility.includeWorkspaceLevel && visibility.teamIds.length === 0) return empty;
      const filter = { workspaceId: principal.workspace_id, ...visibility, title: query.title };
      // A page number far past the end must not overflow Postgres's bigint offset.
      const offset = Math.min((page - 1) * perPage, Number.MAX_SAFE_INTEGER);
      // One snapshot, so that total and data agree while others write.
      return sql.begin("isolation level repeatable read read only", async (tx) => {
        const data = await pages.listPages(tx, filter, {
          sort: query.sort ?? "updated_at",
          order: query.order ?? "desc",
          limit: perPage,
          offset,
        });
        const total = await pages.countPages(tx, filter);
        return { data, total, page, per_page: perPage };
      });
    },
  };
}
export type PageService = ReturnType<typeof pageService>;

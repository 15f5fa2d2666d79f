import { Elysia, t } from "elysia";
import {
  CreatePageBody,
  ErrorObject,
  Page,
  PageList,
  PageListQuery,
  UpdatePageBody,
  noContent,
  requestDeadline,
  requirePrincipal,
  type ServiceDeps,
} from "@ws/shared";
import { pageService } from "./service";

const PageId = t.Object({ id: t.String({ description: "The page id (UUID). Malformed, unknown, deleted or other-workspace ids answer 404." }) });

/** Errors every page operation can answer, besides its own. */
const COMMON_ERRORS = { 401: ErrorObject, 403: ErrorObject, 429: ErrorObject, 500: ErrorObject, 503: ErrorObject, 504: ErrorObject } as const;

/** Spec 4.3 to 4.7: the five page operations under /v1/new-page. */
export function pageRoutes(deps: ServiceDeps) {
  const pages = pageService(deps.sql);
  return new Elysia({ name: "pages", prefix: "/v1/new-page" })
    .use(requirePrincipal(deps.signingKey))
    .use(requestDeadline())
    .get("/", ({ principal, query }) => pages.list(principal, query), {
      query: PageListQuery,
      response: { 200: PageList, 422: ErrorObject, ...COMMON_ERRORS },
    })
    .post(
      "/",
      async ({ principal, body, deadline, set }) => {
        set.status = 201;
        return pages.create(principal, body, deadline);
      },
      {
        body: CreatePageBody,
        response: { 201: Page, 400: ErrorObject, 413: ErrorObject, 422: ErrorObject, ...COMMON_ERRORS },
      },
    )
    .get("/:id", ({ principal, params }) => pages.get(principal, params.id), {
      params: PageId,
      response: { 200: Page, 404: ErrorObject, ...COMMON_ERRORS },
    })
    .put("/:id", ({ principal, params, body, deadline }) => pages.update(principal, params.id, body, deadline), {
      params: PageId,
      body: UpdatePageBody,
      response: { 200: Page, 400: ErrorObject, 404: ErrorObject, 413: ErrorObject, 422: ErrorObject, ...COMMON_ERRORS },
    })
    .delete(
      "/:id",
      async ({ principal, params, deadline }) => {
        await pages.remove(principal, params.id, deadline);
        return noContent();
      },
      {
        params: PageId,
        response: { 204: t.Void({ description: "Deleted, permanently." }), 404: ErrorObject, ...COMMON_ERRORS },
      },
    );
}

import type { PublicHandlers, ServiceDeps } from "@ws/shared";
import * as pages from "./service";

/** The page operations of the public table, each answered by its use case. */
export function pageOperations(deps: ServiceDeps): PublicHandlers<"listPages" | "createPage" | "getPage" | "updatePage" | "deletePage"> {
  return {
    listPages: ({ principal, query }) => pages.listPages(deps.sql, principal, query),
    createPage: ({ principal, body }) => pages.createPage(deps.sql, principal, body),
    getPage: ({ principal, params }) => pages.getPage(deps.sql, principal, params.id),
    updatePage: ({ principal, params, body, ifMatch }) => pages.updatePage(deps.sql, principal, params.id, body, ifMatch),
    deletePage: ({ principal, params, ifMatch }) => pages.deletePage(deps.sql, principal, params.id, ifMatch),
  };
}

import type { PublicHandlers, ServiceDeps } from "@ws/shared";
import * as pages from "./service";

/** The page operations of the public table, each answered by its use case. */
export function pageOperations(deps: ServiceDeps): PublicHandlers<"listPages" | "createPage" | "getPage" | "updatePage" | "deletePage"> {
  return {
    listPages: ({ principal, query, holdUntilAnswered }) => pages.listPages(deps.sql, principal, query, holdUntilAnswered),
    createPage: ({ principal, body, deadline }) => pages.createPage(deps.sql, principal, body, deadline),
    getPage: ({ principal, params, holdUntilAnswered }) => pages.getPage(deps.sql, principal, params.id, holdUntilAnswered),
    updatePage: ({ principal, params, body, deadline, ifMatch }) => pages.updatePage(deps.sql, principal, params.id, body, deadline, ifMatch),
    deletePage: ({ principal, params, deadline, ifMatch }) => pages.deletePage(deps.sql, principal, params.id, deadline, ifMatch),
  };
}

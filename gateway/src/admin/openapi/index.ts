import type { AnyElysia } from "elysia";
import { documentationAnswers, type DocumentationAnswers } from "../../openapi/documentation-answers";
import { ADMIN_DOCS_PATH, ADMIN_DOCUMENT_PATH, buildAdminOpenApiDocument } from "./document";

/**
 * `GET /admin/v1/openapi.json` and `GET /admin/docs` (with its assets) on the
 * internal port, without the admin token. The document is generated from
 * `managementRoutes` on first request and kept; the page loads Swagger UI from
 * the gateway itself, so it works offline.
 */
export function adminDocumentation(managementRoutes: () => AnyElysia, options: { assetDirectory?: string } = {}): DocumentationAnswers {
  return documentationAnswers({
    documentPath: ADMIN_DOCUMENT_PATH,
    docsPath: ADMIN_DOCS_PATH,
    title: "Workspace API management documentation",
    document: async () => JSON.stringify(await buildAdminOpenApiDocument(managementRoutes())),
    assetDirectory: options.assetDirectory,
  });
}

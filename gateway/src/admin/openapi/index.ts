import { Elysia, type AnyElysia } from "elysia";
import { ApiError, requestIdOf } from "@ws/shared";
import { createAssetStore, DOCS_ASSETS, DOCS_CONTENT_SECURITY_POLICY, docsInitializer, docsPage } from "../../openapi/docs-page";
import { ADMIN_DOCS_PATH, ADMIN_DOCUMENT_PATH, buildAdminOpenApiDocument } from "./document";

/**
 * `GET /admin/v1/openapi.json` and `GET /admin/docs` (with its assets) on the
 * internal port, without the admin token: they describe the API, they do not
 * use it. The document is generated from `managementRoutes` on first request
 * and kept; the page loads Swagger UI from the gateway itself, so it works offline.
 */
export function adminDocumentationRoutes(managementRoutes: () => AnyElysia, options: { assetDirectory?: string } = {}): Elysia {
  let document: Promise<string> | undefined;
  const documentText = () => {
    document ??= buildAdminOpenApiDocument(managementRoutes()).then((built) => JSON.stringify(built));
    document.catch(() => (document = undefined));
    return document;
  };
  const asset = createAssetStore(options.assetDirectory);
  const assetsPath = `${ADMIN_DOCS_PATH}/assets`;
  const html = docsPage("Workspace API management documentation", assetsPath);
  const initializer = docsInitializer(ADMIN_DOCUMENT_PATH);
  const respond = (request: Request, body: BodyInit, type: string, extra: Record<string, string> = {}) =>
    new Response(body, { headers: { "content-type": type, "x-request-id": requestIdOf(request), "cache-control": "no-cache", ...extra } });
  const page = ({ request }: { request: Request }) =>
    respond(request, html, "text/html; charset=utf-8", { "content-security-policy": DOCS_CONTENT_SECURITY_POLICY });

  const app = new Elysia({ name: "admin-documentation" });
  app
    .get(ADMIN_DOCUMENT_PATH, async ({ request }) => respond(request, await documentText(), "application/json"))
    .get(ADMIN_DOCS_PATH, page)
    .get(`${ADMIN_DOCS_PATH}/`, page)
    .get(`${assetsPath}/docs-init.js`, ({ request }) => respond(request, initializer, "text/javascript; charset=utf-8"))
    .get(`${assetsPath}/:name`, async ({ request, params }) => {
      const file = asset(params.name);
      if (!file) throw ApiError.notFound("No such path.");
      return respond(request, await file, DOCS_ASSETS[params.name]!, { "cache-control": "public, max-age=3600" });
    });
  return app;
}

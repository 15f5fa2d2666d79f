import { Elysia } from "elysia";
import { ApiError, requestIdOf } from "@ws/shared";
import { createAssetStore, DOCS_ASSETS, DOCS_CONTENT_SECURITY_POLICY, DOCS_INITIALIZER, DOCS_PAGE } from "./docs-page";
import { buildOpenApiDocument } from "./document";

export { buildOpenApiDocument } from "./document";

/**
 * `GET /openapi.json` and `GET /docs` (with its assets): unauthenticated,
 * mounted on the public app before the catch-all API handler.
 */
export function documentationRoutes(options: { assetDirectory?: string } = {}): Elysia {
  const document = JSON.stringify(buildOpenApiDocument());
  const asset = createAssetStore(options.assetDirectory);
  const respond = (request: Request, body: BodyInit, type: string, extra: Record<string, string> = {}) =>
    new Response(body, {
      headers: { "content-type": type, "x-request-id": requestIdOf(request), "cache-control": "no-cache", ...extra },
    });

  const page = ({ request }: { request: Request }) =>
    respond(request, DOCS_PAGE, "text/html; charset=utf-8", { "content-security-policy": DOCS_CONTENT_SECURITY_POLICY });

  // Built by statement, not by chain, so its type is the plain Elysia that createApp takes.
  const app = new Elysia({ name: "documentation" });
  app
    .get("/openapi.json", ({ request }) => respond(request, document, "application/json", { "access-control-allow-origin": "*" }))
    .get("/docs", page)
    .get("/docs/", page)
    .get("/docs/assets/docs-init.js", ({ request }) => respond(request, DOCS_INITIALIZER, "text/javascript; charset=utf-8"))
    .get("/docs/assets/:name", async ({ request, params }) => {
      const file = asset(params.name);
      if (!file) throw ApiError.notFound("No such path.");
      return respond(request, await file, DOCS_ASSETS[params.name]!, { "cache-control": "public, max-age=3600" });
    });
  return app;
}

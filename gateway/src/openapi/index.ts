import { PlainAnswer, requestIdOf, requestPath, type IncomingRequest } from "@ws/shared";
import { createAssetStore, DOCS_ASSETS, DOCS_CONTENT_SECURITY_POLICY, DOCS_INITIALIZER, DOCS_PAGE } from "./docs-page";
import { buildOpenApiDocument } from "./document";

export { buildOpenApiDocument } from "./document";

/** The answer to a documentation path, or undefined for any other request. */
export type DocumentationAnswers = (request: IncomingRequest) => Promise<PlainAnswer> | undefined;

const ASSETS_PREFIX = "/docs/assets/";
const encoder = new TextEncoder();

/**
 * `GET /openapi.json` and `GET /docs` (with its assets): unauthenticated,
 * answered before anything else on the public port. Each body is made once and
 * every answer carries those same bytes: the server writes them without a copy,
 * so a client asking for the 1.7 MB Swagger bundle on thousands of connections
 * and reading none of it costs the gateway a few hundred bytes a connection,
 * not a copy of the bundle each.
 */
export function documentationAnswers(options: { assetDirectory?: string } = {}): DocumentationAnswers {
  const asset = createAssetStore(options.assetDirectory);
  const fixed = new Map<string, { body: Uint8Array<ArrayBuffer>; fields: [string, string][] }>([
    ["/openapi.json", { body: encoder.encode(JSON.stringify(buildOpenApiDocument())), fields: [["content-type", "application/json"], ["access-control-allow-origin", "*"]] }],
    ["/docs", { body: encoder.encode(DOCS_PAGE), fields: [["content-type", "text/html; charset=utf-8"], ["content-security-policy", DOCS_CONTENT_SECURITY_POLICY]] }],
    ["/docs/assets/docs-init.js", { body: encoder.encode(DOCS_INITIALIZER), fields: [["content-type", "text/javascript; charset=utf-8"]] }],
  ]);
  fixed.set("/docs/", fixed.get("/docs")!);
  const answer = (request: IncomingRequest, body: Uint8Array<ArrayBuffer>, fields: [string, string][], cacheControl = "no-cache") =>
    new PlainAnswer(200, [...fields, ["x-request-id", requestIdOf(request)], ["cache-control", cacheControl]], body);

  return (request) => {
    if (request.method !== "GET") return undefined;
    const path = requestPath(request);
    const known = fixed.get(path);
    if (known) return Promise.resolve(answer(request, known.body, known.fields));
    if (!path.startsWith(ASSETS_PREFIX)) return undefined;
    const name = path.slice(ASSETS_PREFIX.length);
    const file = asset(name);
    return file?.then((body) => answer(request, body, [["content-type", DOCS_ASSETS[name]!]], "public, max-age=3600"));
  };
}

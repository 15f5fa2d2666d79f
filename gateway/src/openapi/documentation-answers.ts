import { PlainAnswer, requestIdOf, requestPath, type IncomingRequest } from "@ws/shared";
import { createAssetStore, DOCS_ASSETS, DOCS_CONTENT_SECURITY_POLICY, docsInitializer, docsPage } from "./docs-page";

/** The answer to a documentation path asked with GET, or undefined for any other request; `paths` are the paths it answers. */
export type DocumentationAnswers = ((request: IncomingRequest) => Promise<PlainAnswer> | undefined) & { readonly paths: readonly string[] };

/** One API's documentation: its OpenAPI document and a Swagger UI page for it. */
export interface DocumentationSite {
  documentPath: string;
  docsPath: string;
  title: string;
  /** The document's JSON text, asked for on first request and kept (asked again if it failed). */
  document: () => string | Promise<string>;
  /** Fields the document's answer carries besides its type. */
  documentFields?: [string, string][];
  assetDirectory?: string;
}

const encoder = new TextEncoder();

interface Made {
  body: Uint8Array<ArrayBuffer>;
  fields: [string, string][];
  cacheControl?: string;
}

/**
 * A documentation site's answers: unauthenticated (they describe an API, they
 * do not use it), answered before anything else on their port. Each body is
 * made once and every answer carries those same bytes, which the server writes
 * without a copy: a client asking for the 1.7 MB Swagger bundle on thousands
 * of connections and reading none of it costs a few hundred bytes a
 * connection, not a copy of the bundle each.
 */
export function documentationAnswers(site: DocumentationSite): DocumentationAnswers {
  const asset = createAssetStore(site.assetDirectory);
  const assetsPath = `${site.docsPath}/assets/`;
  const page: Made = {
    body: encoder.encode(docsPage(site.title, assetsPath.slice(0, -1))),
    fields: [["content-type", "text/html; charset=utf-8"], ["content-security-policy", DOCS_CONTENT_SECURITY_POLICY]],
  };
  const fixed = new Map<string, Made>([
    [site.docsPath, page],
    [`${assetsPath}docs-init.js`, { body: encoder.encode(docsInitializer(site.documentPath)), fields: [["content-type", "text/javascript; charset=utf-8"]] }],
  ]);
  let document: Promise<Made> | undefined;
  const madeDocument = () => {
    document ??= Promise.resolve(site.document()).then((text) => ({ body: encoder.encode(text), fields: [["content-type", "application/json"], ...(site.documentFields ?? [])] }));
    document.catch(() => (document = undefined));
    return document;
  };
  const answer = (request: IncomingRequest, made: Made) =>
    new PlainAnswer(200, [...made.fields, ["x-request-id", requestIdOf(request)], ["cache-control", made.cacheControl ?? "no-cache"]], made.body);

  const answers = (request: IncomingRequest) => {
    if (request.method !== "GET") return undefined;
    const path = withoutTrailingSlash(requestPath(request));
    if (path === site.documentPath) return madeDocument().then((made) => answer(request, made));
    const known = fixed.get(path);
    if (known) return Promise.resolve(answer(request, known));
    if (!path.startsWith(assetsPath)) return undefined;
    const name = path.slice(assetsPath.length);
    return asset(name)?.then((body) => answer(request, { body, fields: [["content-type", DOCS_ASSETS[name]!]], cacheControl: "public, max-age=3600" }));
  };
  const paths = [site.documentPath, ...fixed.keys(), ...Object.keys(DOCS_ASSETS).map((name) => assetsPath + name)];
  return Object.assign(answers, { paths });
}

/** A trailing slash is optional on every path. */
function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

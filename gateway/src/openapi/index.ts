import { buildOpenApiDocument } from "./document";
import { documentationAnswers, type DocumentationAnswers } from "./documentation-answers";

export { buildOpenApiDocument } from "./document";
export type { DocumentationAnswers } from "./documentation-answers";

/** `GET /openapi.json` and `GET /docs` (with its assets), on the public port. */
export function publicDocumentation(options: { assetDirectory?: string } = {}): DocumentationAnswers {
  const text = JSON.stringify(buildOpenApiDocument());
  return documentationAnswers({
    documentPath: "/openapi.json",
    docsPath: "/docs",
    title: "Workspace API documentation",
    document: () => text,
    documentFields: [["access-control-allow-origin", "*"]],
    assetDirectory: options.assetDirectory,
  });
}

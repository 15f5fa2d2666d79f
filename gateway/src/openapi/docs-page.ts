import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The files of swagger-ui-dist the page loads; served by the gateway so no CDN is needed. */
export const DOCS_ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
  "favicon-16x16.png": "image/png",
};

/**
 * Where swagger-ui-dist is installed. `createRequire` resolves through
 * node_modules the same way on Bun, Deno and Node.
 */
export function swaggerUiDirectory(): string {
  return dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
}

/** Reads each asset once, on first use, and keeps it. */
export function createAssetStore(directory = swaggerUiDirectory()) {
  const cache = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();
  return (name: string): Promise<Uint8Array<ArrayBuffer>> | undefined => {
    if (!Object.hasOwn(DOCS_ASSETS, name)) return undefined;
    let file = cache.get(name);
    if (!file) {
      file = readFile(join(directory, name)).then((buffer) => new Uint8Array(buffer));
      file.catch(() => cache.delete(name));
      cache.set(name, file);
    }
    return file;
  };
}

// The initializer is a file of its own so the page needs no inline script.
export function docsInitializer(documentUrl: string): string {
  return `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(documentUrl)},
    dom_id: "#swagger-ui",
    deepLinking: true,
    docExpansion: "list",
    persistAuthorization: false,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout"
  });
});
`;
}

/** The page: Swagger UI from `assetsPath` (where DOCS_ASSETS and `docs-init.js` are served), nothing from elsewhere. */
export function docsPage(title: string, assetsPath: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${title}</title>
  <link rel="stylesheet" href="${assetsPath}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${assetsPath}/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="${assetsPath}/favicon-16x16.png" sizes="16x16">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${assetsPath}/swagger-ui-bundle.js"></script>
  <script src="${assetsPath}/docs-init.js"></script>
</body>
</html>
`;
}


/** Everything the page loads comes from this origin; Swagger UI sets inline styles and data: images. */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

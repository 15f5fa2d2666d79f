/** The unauthenticated paths of the public port, answered before any key check. */
export const OPERATIONAL_PATHS = {
  "/openapi.json": {
    get: {
      operationId: "getOpenApiDocument",
      summary: "This OpenAPI document",
      tags: ["Operations"],
      security: [],
      responses: {
        "200": {
          description: "The OpenAPI 3.1.0 document of the public API.",
          content: { "application/json": { schema: {
              type: "object",
              required: ["openapi", "info", "paths"],
              properties: { openapi: { const: "3.1.0" }, info: { type: "object" }, paths: { type: "object" } },
            } } },
        },
      },
    },
  },
  "/docs": {
    get: {
      operationId: "getDocsPage",
      summary: "Interactive documentation page",
      description: "Swagger UI, with its scripts and styles served by the gateway itself (no CDN).",
      tags: ["Operations"],
      security: [],
      responses: {
        "200": { description: "The documentation page.", content: { "text/html": { schema: { type: "string" } } } },
      },
    },
  },
  "/healthz": {
    get: {
      operationId: "getLiveness",
      summary: "Liveness",
      tags: ["Operations"],
      security: [],
      responses: {
        "200": {
          description: "The process is alive.",
          content: {
            "application/json": {
              schema: { type: "object", required: ["status"], properties: { status: { const: "ok" } } },
              example: { status: "ok" },
            },
          },
        },
      },
    },
  },
  "/readyz": {
    get: {
      operationId: "getReadiness",
      summary: "Readiness",
      description: "Ready when the database and the services answer and the process is not shutting down.",
      tags: ["Operations"],
      security: [],
      responses: {
        "200": {
          description: "Ready to serve.",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["status", "checks"],
                properties: {
                  status: { const: "ready" },
                  checks: { type: "object", additionalProperties: { type: "string" } },
                },
              },
              example: { status: "ready", checks: { database: "ok", pages: "ok", calendar: "ok" } },
            },
          },
        },
        "503": { $ref: "#/components/responses/ServiceUnavailable", description: "Not ready, or shutting down; `details.checks` says which dependency failed." },
      },
    },
  },
};

/**
 * A typed client for the pages API: openapi-fetch with the types openapi-typescript
 * generated from the OpenAPI document. Creates, reads, updates, lists and deletes
 * a page. Run against a running gateway:
 *
 *   BASE_URL=http://localhost:8080 API_KEY=wsk_... bun examples/pages-client.ts
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/workspace-api";

export type Page = components["schemas"]["Page"];
type ApiError = components["schemas"]["Error"];

function fail(step: string, status: number, error: ApiError | undefined): never {
  throw new Error(`${step} failed with ${status}: ${error?.error.code ?? "no error object"} ${error?.error.message ?? ""}`);
}

export async function runPagesExample(baseUrl: string, apiKey: string, log: (line: string) => void = console.log) {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });

  const created = await client.POST("/v1/new-page", {
    body: { title: "Typed client example", content: "# Hello\n\nCreated with openapi-fetch." },
  });
  if (!created.data) fail("create", created.response.status, created.error);
  const id = created.data.id;
  log(`created ${id} at ${created.data.created_at}`);

  const read = await client.GET("/v1/new-page/{id}", { params: { path: { id } } });
  if (!read.data) fail("get", read.response.status, read.error);
  log(`read "${read.data.title}"`);

  const updated = await client.PUT("/v1/new-page/{id}", { params: { path: { id } }, body: { title: "Typed client example, updated" } });
  if (!updated.data) fail("update", updated.response.status, updated.error);
  log(`updated at ${updated.data.updated_at}`);

  const listed = await client.GET("/v1/new-page", { params: { query: { title: "typed client", sort: "updated_at", order: "desc", per_page: 10 } } });
  if (!listed.data) fail("list", listed.response.status, listed.error);
  log(`listed ${listed.data.data.length} of ${listed.data.total}`);

  const deleted = await client.DELETE("/v1/new-page/{id}", { params: { path: { id } } });
  if (deleted.response.status !== 204) fail("delete", deleted.response.status, deleted.error);
  log("deleted");

  const gone = await client.GET("/v1/new-page/{id}", { params: { path: { id } } });
  if (gone.response.status !== 404) throw new Error(`expected 404 after delete, got ${gone.response.status}`);
  log(`after delete: ${gone.error?.error.code}`);

  return { created: created.data, updated: updated.data, listed: listed.data };
}

if (import.meta.main) {
  const baseUrl = process.env.BASE_URL ?? "http://localhost:8080";
  const apiKey = process.env.API_KEY;
  if (!apiKey) {
    console.error("Set API_KEY to a key with the docs scopes (npm start prints a demo key).");
    process.exit(1);
  }
  await runPagesExample(baseUrl, apiKey);
}

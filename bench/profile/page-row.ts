import { randomUUID } from "node:crypto";
import { migrate, type Pool } from "@ws/shared";
import { pagesService } from "../../services/pages/src/definition";

/**
 * The pages table of a fresh database, with one page of a new workspace in it:
 * what the profiles that go straight to the pages service's SQL read.
 */
export async function seedPageRow(sql: Pool): Promise<{ workspaceId: string; pageId: string }> {
  await migrate(sql, "pages", pagesService.migrations);
  const workspaceId = randomUUID();
  const pageId = randomUUID();
  await sql`insert into pages (id, workspace_id, title, content, created_at, updated_at)
    values (${pageId}, ${workspaceId}, 'Bench page', 'A page read over and over by the benchmark.', now(), now())`;
  return { workspaceId, pageId };
}

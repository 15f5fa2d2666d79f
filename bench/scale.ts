import type postgres from "postgres";

/** Ten title words, so a word filter matches a tenth of the pages. */
const WORDS = ["Roadmap", "Meeting notes", "Design review", "Budget", "Retrospective", "Onboarding", "Release plan", "Incident report", "Hiring", "Quarterly goals"];

/**
 * Grows one workspace to `to` pages with one INSERT … SELECT, matching
 * services/pages/src/migrations/001_pages.sql: workspace-level pages (team_id
 * null), one a second going back in time, updated a little after creation.
 */
export async function growPages(sql: postgres.Sql, workspaceId: string, from: number, to: number): Promise<void> {
  await sql`
    insert into pages (id, workspace_id, team_id, title, content, created_at, updated_at)
    select gen_random_uuid(), ${workspaceId}::uuid, null,
      (${WORDS}::text[])[1 + i % ${WORDS.length}] || ' ' || i,
      'Body of page ' || i,
      now() - i * interval '1 second',
      now() - i * interval '1 second' + (i % 997) * interval '1 millisecond'
    from generate_series(${from + 1}::int, ${to}::int) as i`;
  // What autovacuum would do soon after a bulk load: statistics and the visibility map.
  await sql`vacuum analyze pages`;
}

/** The list queries measured at each size: each sort in its default order (desc), title ascending, and two title filters. */
export const LIST_QUERIES: { name: string; query: string }[] = [
  { name: "sort=updated_at (desc)", query: "sort=updated_at" },
  { name: "sort=created_at (desc)", query: "sort=created_at" },
  { name: "sort=title (desc)", query: "sort=title" },
  { name: "sort=title&order=asc", query: "sort=title&order=asc" },
  { name: "title=roadmap (10% match)", query: "title=roadmap" },
  { name: "title=12345 (rare)", query: "title=12345" },
];

/**
 * The floor's service: an Elysia app that selects the page by primary key with
 * `postgres` (pool 50) and answers it as JSON. No principal, no validation
 * beyond the route, no logging: the least a pages service can do.
 */
import { Elysia } from "elysia";
import postgres from "postgres";

// The PostgreSQL server may be shared: connections idle for 5 s close (while the full path is measured).
const sql = postgres(process.env.DATABASE_URL!, { max: Number(process.env.POOL_MAX ?? 50), idle_timeout: 5, onnotice: () => {} });

const app = new Elysia().get("/v1/new-page/:id", async ({ params, set }) => {
  const [page] = await sql`
    select id, team_id, title, content,
      to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at,
      to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as updated_at
    from pages where id = ${params.id}`;
  if (!page) set.status = 404;
  return page ?? { error: { code: "not_found", message: "No such page." } };
});
app.listen({ port: Number(process.env.PORT), hostname: "127.0.0.1" });

process.on("SIGTERM", async () => {
  await app.stop();
  await sql.end({ timeout: 1 });
  process.exit(0);
});

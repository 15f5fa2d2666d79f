import postgres from "postgres";
import { describeDatabaseError } from "./database-errors";

/** Connects once; resolves, or rejects with a one-line reason naming DATABASE_URL. */
export async function checkDatabase(url: string, timeoutSeconds = 5): Promise<void> {
  const sql = postgres(url, { max: 1, connect_timeout: timeoutSeconds, onnotice: () => {} });
  try {
    await sql`select 1`;
  } catch (error) {
    throw new Error(describeDatabaseError(error, url));
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}
